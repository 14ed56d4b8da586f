package org.gargamel.tpcc.workload;

import java.sql.Connection;
import java.util.Locale;
import org.gargamel.common.config.Isolation;

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

    /**
     * {@code read-committed}, {@code repeatable-read} or {@code serializable} (any case); {@code psi} and {@code si}
     * are accepted as read-committed and repeatable-read, the levels that give them on one server. Anything else is
     * an error naming the choices.
     */
    public static DirectIsolation parse(String text) {
        if (text != null) {
            String wanted = text.trim().toLowerCase(Locale.ROOT);
            if (wanted.equals(Isolation.PSI.configName())) {
                return READ_COMMITTED;
            }
            if (wanted.equals(Isolation.SI.configName())) {
                return REPEATABLE_READ;
            }
            for (DirectIsolation isolation : values()) {
                if (isolation.cliName.equals(wanted)) {
                    return isolation;
                }
            }
        }
        throw new IllegalArgumentException("unknown isolation '" + text + "' for direct mode (expected read-committed, "
                + "repeatable-read or serializable; psi and si are accepted as read-committed and repeatable-read)");
    }
}
