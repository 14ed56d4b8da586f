package org.gargamel.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a node does when a call it executes writes outside the keys its rule predicts (an unsound rule; docs/classifier.md,
 * Rules checked against what procedures write). Key {@code rulesCheck} of the node's configuration; only gargamel mode
 * checks, since only there do the rules decide which calls run side by side.
 */
public enum RulesCheck {
    /** Log it, count it, and commit as usual. */
    WARN("warn"),
    /** Log it, count it, and roll the call back before it commits or is broadcast: its client gets the error. */
    REJECT("reject"),
    /** No check. */
    OFF("off");

    /**
     * The SQLSTATE of the REJECTED outcome of a call rolled back for writing outside its rule (class Z: implementation
     * defined, unused by PostgreSQL).
     */
    public static final String SQLSTATE = "ZG001";

    private final String configName;

    RulesCheck(String configName) {
        this.configName = configName;
    }

    @JsonValue
    public String configName() {
        return configName;
    }

    /** {@code warn}, {@code reject} or {@code off}; anything else is an error naming the choices. */
    @JsonCreator
    public static RulesCheck parse(String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (RulesCheck check : values()) {
                if (check.configName.equals(wanted)) {
                    return check;
                }
            }
        }
        throw new IllegalArgumentException("unknown rulesCheck '" + name + "' (expected warn, reject or off)");
    }

    @Override
    public String toString() {
        return configName;
    }
}
