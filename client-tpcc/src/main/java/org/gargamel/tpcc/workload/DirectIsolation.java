package org.gargamel.tpcc.workload;

import java.sql.Connection;

/** PostgreSQL isolation levels for the direct mode, by their command-line names. */
public enum DirectIsolation {
    READ_COMMITTED("read-committed", Connection.TRANSACTION_READ_COMMITTED),
    REPEATABLE_READ("repeatable-read", Connection.TRANSACTION_REPEATABLE_READ),
    SERIALIZABLE("serializable", Connection.TRANSACTION_SERIALIZABLE);

    private final String cliName;
    private final int jdbcLevel;

    DirectIsolation(String cliName, int jdbcLevel) {
        this.cliName = cliName;
        this.jdbcLevel = jdbcLevel;
    }

    public String cliName() {
        return cliName;
    }

    public int jdbcLevel() {
        return jdbcLevel;
    }

    public static DirectIsolation parse(String text) {
        for (DirectIsolation isolation : values()) {
            if (isolation.cliName.equals(text)) {
                return isolation;
            }
        }
        throw new IllegalArgumentException("unknown isolation '" + text
                + "' for direct mode (expected read-committed, repeatable-read or serializable)");
    }
}
