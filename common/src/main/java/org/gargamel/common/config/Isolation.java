package org.gargamel.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The isolation a cluster gives update transactions, and with it the conflict granularity (DESIGN.md §3). PSI: two
 * writes conflict when they may touch the same row and share a column, so New-Order (d_next_o_id) and Payment (d_ytd)
 * of one district do not; a node commits at once. SI: any two writes of the same row conflict, because SI replicas
 * commit in one total order and a node could otherwise wait on a row lock held by a transaction that commits later in
 * that order. Written in configuration files and on the command line by its {@link #configName()}.
 */
public enum Isolation {
    PSI("psi"),
    SI("si");

    private final String configName;

    Isolation(String configName) {
        this.configName = configName;
    }

    @JsonValue
    public String configName() {
        return configName;
    }

    /** {@code psi} or {@code si} (any case); anything else is an error naming the choices. */
    @JsonCreator
    public static Isolation parse(String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (Isolation isolation : values()) {
                if (isolation.configName.equals(wanted)) {
                    return isolation;
                }
            }
        }
        throw new IllegalArgumentException("unknown isolation '" + name + "' (expected psi or si)");
    }

    @Override
    public String toString() {
        return configName;
    }
}
