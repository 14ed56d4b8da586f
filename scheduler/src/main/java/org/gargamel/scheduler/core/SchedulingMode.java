package org.gargamel.scheduler.core;

import java.util.Locale;

/** How the scheduler orders and places update calls (DESIGN.md §4 and §7). */
public enum SchedulingMode {
    /** Conflict chains from the classifier's index; a call continues the chain it closes (thesis §3.3). */
    GARGAMEL("gargamel"),
    /** No dependencies; update calls go to the workers in turn (the certification baseline's placement). */
    ROUND_ROBIN("round-robin"),
    /** Every update call on one worker, after the previous update call (a primary-copy system). */
    CENTRALIZED("centralized");

    private final String cliName;

    SchedulingMode(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** {@code gargamel}, {@code round-robin} or {@code centralized} (case-insensitive). */
    public static SchedulingMode parse(String cliName) {
        if (cliName != null) {
            String wanted = cliName.trim().toLowerCase(Locale.ROOT);
            for (SchedulingMode mode : values()) {
                if (mode.cliName.equals(wanted)) {
                    return mode;
                }
            }
        }
        throw new IllegalArgumentException("unknown scheduling mode '" + cliName
                + "' (expected gargamel, round-robin or centralized)");
    }
}
