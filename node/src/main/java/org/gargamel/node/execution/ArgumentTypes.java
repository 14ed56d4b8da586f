package org.gargamel.node.execution;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ProcedureRule;

/**
 * Per procedure, the SQL element type of each array parameter as the rules declare it, so an array argument is bound
 * with its declared type even when its elements cannot tell it (all NULL): the procedure then runs and judges the
 * argument itself, instead of the call failing before it reaches PostgreSQL.
 */
public final class ArgumentTypes {
    private final Map<String, List<String>> arrayElementTypes;

    private ArgumentTypes(Map<String, List<String>> arrayElementTypes) {
        this.arrayElementTypes = arrayElementTypes;
    }

    public static ArgumentTypes from(ClassifierRules rules) {
        Map<String, List<String>> types = new HashMap<>();
        for (Map.Entry<String, ProcedureRule> procedure : rules.procedures().entrySet()) {
            List<String> elements = new ArrayList<>();
            for (Parameter parameter : procedure.getValue().parameters()) {
                elements.add(
                        parameter.type().isArray()
                                ? parameter.type().elementType().sqlName()
                                : null);
            }
            types.put(procedure.getKey(), Collections.unmodifiableList(elements));
        }
        return new ArgumentTypes(Map.copyOf(types));
    }

    /** No declared types: every array's type is inferred from its elements (tests). */
    public static ArgumentTypes none() {
        return new ArgumentTypes(Map.of());
    }

    /** By argument position: the element type of an array parameter, null for other parameters. */
    List<String> arrayElementTypes(String procedure) {
        return arrayElementTypes.getOrDefault(procedure, List.of());
    }
}
