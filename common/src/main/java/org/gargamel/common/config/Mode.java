package org.gargamel.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How update calls are placed and run (DESIGN.md §4 and §7); the scheduler and every node of a cluster run in the
 * same mode. Written in configuration files and on the command line by its {@link #configName()}.
 */
public enum Mode {
    /** Conflict chains from the classifier; a call continues the chain it closes (thesis §3.3). */
    GARGAMEL("gargamel"),
    /** The certification baseline: update calls go to the workers in turn, run concurrently, and are certified. */
    ROUND_ROBIN("round-robin"),
    /** Every update call on one worker, after the previous one (a primary-copy system). */
    CENTRALIZED("centralized");

    private final String configName;

    Mode(String configName) {
        this.configName = configName;
    }

    @JsonValue
    public String configName() {
        return configName;
    }

    /** {@code gargamel}, {@code round-robin} or {@code centralized}; anything else is an error naming the choices. */
    @JsonCreator
    public static Mode parse(String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (Mode mode : values()) {
                if (mode.configName.equals(wanted)) {
                    return mode;
                }
            }
        }
        throw new IllegalArgumentException("unknown mode '" + name + "' (expected " + choices() + ")");
    }

    /** The configuration names, for messages and help: "gargamel, round-robin or centralized". */
    public static String choices() {
        String all = Arrays.stream(values()).map(Mode::configName).collect(Collectors.joining(", "));
        int last = all.lastIndexOf(", ");
        return all.substring(0, last) + " or " + all.substring(last + 2);
    }

    @Override
    public String toString() {
        return configName;
    }
}
