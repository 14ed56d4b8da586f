package org.gargamel.classifier;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;

/**
 * Whether two calls conflict, decided cell by cell from the rules as docs/classifier.md states it, without the
 * classifier's column groups, slots or hashed parts: they touch a common cell (PSI: a row both designate and a column
 * both list; SI: a row both designate) that one of them writes, or that both read and some procedure writes. In PSI two
 * increments ({@code add:}) of a cell do not conflict over it; in SI an increment is an ordinary write.
 */
final class CellOracle {
    /** One write or read of one call: a table, the key's known leading values (the rest are wildcards), columns. */
    private record Access(String table, List<Object> known, Set<String> columns, Set<String> added, boolean read) {}

    private final ClassifierRules rules;
    private final Isolation isolation;
    /** Per table, the columns some keyed (not fresh) write of any procedure touches. */
    private final Map<String, Set<String>> written = new HashMap<>();

    CellOracle(ClassifierRules rules, Isolation isolation) {
        this.rules = rules;
        this.isolation = isolation;
        for (ProcedureRule procedure : rules.procedures().values()) {
            for (WriteRule write : procedure.writes()) {
                if (!write.fresh()) {
                    written.computeIfAbsent(write.table().name(), table -> new HashSet<>())
                            .addAll(write.touchedColumns());
                }
            }
        }
    }

    boolean conflict(ProcedureCall first, ProcedureCall second) {
        for (Access a : accesses(first)) {
            for (Access b : accesses(second)) {
                if (a.table().equals(b.table()) && sameRowPossible(a.known(), b.known()) && sharedCell(a, b)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean sharedCell(Access a, Access b) {
        Set<String> writtenHere = written.getOrDefault(a.table(), Set.of());
        if (isolation == Isolation.SI) {
            return !a.read() || !b.read() || !writtenHere.isEmpty();
        }
        for (String column : a.columns()) {
            if (b.columns().contains(column)
                    && writtenHere.contains(column)
                    && !(a.added().contains(column) && b.added().contains(column))) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameRowPossible(List<Object> a, List<Object> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!a.get(i).equals(b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private List<Access> accesses(ProcedureCall call) {
        ProcedureRule rule = rules.procedure(call.procedure());
        List<WriteRule> all = new ArrayList<>(rule.writes());
        all.addAll(rule.reads());
        List<Access> accesses = new ArrayList<>();
        for (WriteRule access : all) {
            if (access.fresh()) {
                continue;
            }
            int elements = 1;
            for (KeyPart part : access.key()) {
                if (part.kind() == KeyPart.Kind.ELEMENT) {
                    elements = ((List<?>) call.arguments().get(part.parameterIndex())).size();
                }
            }
            for (int element = 0; element < elements; element++) {
                List<Object> known = new ArrayList<>();
                for (KeyPart part : access.key()) {
                    Object value = switch (part.kind()) {
                        case WILDCARD -> null;
                        case CONSTANT -> part.constant();
                        case PARAMETER, PARAMETER_OR_WILDCARD ->
                            call.arguments().get(part.parameterIndex());
                        case ELEMENT -> ((List<?>) call.arguments().get(part.parameterIndex())).get(element);
                    };
                    if (value == null) {
                        break;
                    }
                    known.add(value);
                }
                accesses.add(new Access(
                        access.table().name(), known, access.touchedColumns(), access.added(), access.isRead()));
            }
        }
        return accesses;
    }
}
