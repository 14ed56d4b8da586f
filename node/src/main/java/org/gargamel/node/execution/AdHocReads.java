package org.gargamel.node.execution;

/**
 * Whether a node runs ad-hoc read-only queries (key {@code adhocReads}), how long one may run before PostgreSQL
 * cancels it (the node configuration's timeout key for ad-hoc queries), and how much it may return: at most
 * {@code maxRows} rows and {@code maxCharacters} characters of values in text, beyond which it is refused with 54000 instead of
 * being held in the node's memory (a hostile {@code SELECT generate_series(1, 1e9)}).
 */
public record AdHocReads(boolean enabled, int statementTimeoutSeconds, int maxRows, long maxCharacters) {
    /** The default of the node configuration's {@code adhocMaxRows}. */
    public static final int DEFAULT_MAX_ROWS = 100_000;

    /** The default of {@code adhocMaxCharacters}: 16 Mi characters of a read's values in text. */
    public static final long DEFAULT_MAX_CHARACTERS = 16L << 20;

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
        this(enabled, statementTimeoutSeconds, DEFAULT_MAX_ROWS, DEFAULT_MAX_CHARACTERS);
    }

    /**
     * The most bytes a read's connection buffers of one result: four bytes per character allowed (UTF-8's widest) and
     * a mebibyte of framing. pgjdbc reads a result whole before it hands over its first row, so this, not the count
     * of characters, is what bounds a read's memory: a result of few rows of huge values stops there ({@code
     * maxResultBuffer}).
     */
    public long maxResultBytes() {
        return maxCharacters > (Long.MAX_VALUE >> 3) ? Long.MAX_VALUE : maxCharacters * 4 + (1L << 20);
    }
}
