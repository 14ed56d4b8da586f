package org.gargamel.node.execution;

/**
 * Whether a node runs ad-hoc read-only queries (key {@code adhocReads}), how long one may run before PostgreSQL
 * cancels it (the node configuration's timeout key for ad-hoc queries), and how much it may return: at most
 * {@code maxRows} rows and {@code maxCharacters} characters of values in text, beyond which it is refused with 54000 instead of
 * being held in the node's memory (a hostile {@code SELECT generate_series(1, 1e9)}).
 */
public record AdHocReads(boolean enabled, int statementTimeoutSeconds, int maxRows, long maxCharacters) {
    public AdHocReads {
        if (statementTimeoutSeconds < 1) {
            throw new IllegalArgumentException("statement timeout " + statementTimeoutSeconds + " s");
        }
        if (maxRows < 1 || maxCharacters < 1) {
            throw new IllegalArgumentException("limits of " + maxRows + " rows and " + maxCharacters + " characters");
        }
    }

    /** With the default limits of rows and characters. */
    public AdHocReads(boolean enabled, int statementTimeoutSeconds) {
        this(enabled, statementTimeoutSeconds, 100_000, 64L << 20);
    }
}
