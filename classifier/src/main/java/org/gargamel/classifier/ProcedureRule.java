package org.gargamel.classifier;

import java.util.List;

/** One procedure of the rules: its parameters in call order, whether it is read-only, and its writes. */
public record ProcedureRule(
        String name, List<Parameter> parameters, boolean readOnly, List<WriteRule> writes, int line) {
    public ProcedureRule {
        parameters = List.copyOf(parameters);
        writes = List.copyOf(writes);
    }

    public int parameterIndex(String parameter) {
        for (int i = 0; i < parameters.size(); i++) {
            if (parameters.get(i).name().equals(parameter)) {
                return i;
            }
        }
        return -1;
    }
}
