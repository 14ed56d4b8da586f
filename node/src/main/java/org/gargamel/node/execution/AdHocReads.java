package org.gargamel.node.execution;

/**
 * Whether a node runs ad-hoc read-only queries (key {@code adhocReads}), and how long one may run before PostgreSQL
 * cancels it (the node configuration's timeout key for ad-hoc queries).
 */
public record AdHocReads(boolean enabled, int statementTimeoutSeconds) {
    public AdHocReads {
        if (statementTimeoutSeconds < 1) {
            throw new IllegalArgumentException("statement timeout " + statementTimeoutSeconds + " s");
        }
    }
}
