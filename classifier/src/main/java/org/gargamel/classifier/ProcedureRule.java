package org.gargamel.classifier;

import java.util.List;

/**
 * One procedure of the rules: its parameters in call order, whether it is read-only, its writes, and the cells it
 * declares it reads ({@code reads:}, rules of operation {@link WriteRule.Operation#READ}; only update procedures have
 * them).
 */
public record ProcedureRule(
        String name,
        List<Parameter> parameters,
        boolean readOnly,
        List<WriteRule> writes,
        List<WriteRule> reads,
        int line) {
    public ProcedureRule {
        parameters = List.copyOf(parameters);
        writes = List.copyOf(writes);
        reads = List.copyOf(reads);
    }

    /** A procedure that declares no reads. */
    public ProcedureRule(String name, List<Parameter> parameters, boolean readOnly, List<WriteRule> writes, int line) {
        this(name, parameters, readOnly, writes, List.of(), line);
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
