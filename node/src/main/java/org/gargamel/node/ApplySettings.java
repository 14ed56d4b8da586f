package org.gargamel.node;

import org.gargamel.common.config.ConfigException;

/**
 * How this node applies the other replicas' write-sets (keys {@code appliers}, {@code applyGroup}; docs/node.md,
 * Parallel apply and Apply groups): with how many connections at once, and at most how many delivered write-sets in
 * one transaction. A section of {@link NodeConfig}.
 */
public record ApplySettings(int appliers, int applyGroup) {
    /** The default of {@code appliers}: one connection applies the write-sets, in log order. */
    public static final int DEFAULT_APPLIERS = 1;

    /** The default of {@code applyGroup}. */
    public static final int DEFAULT_APPLY_GROUP = 32;

    static final ApplySettings DEFAULT = new ApplySettings(DEFAULT_APPLIERS, DEFAULT_APPLY_GROUP);

    void validate() {
        if (appliers < 1 || appliers > 64) {
            throw new ConfigException("key 'appliers' must be between 1 and 64, got " + appliers);
        }
        if (applyGroup < 1 || applyGroup > 1000) {
            throw new ConfigException("key 'applyGroup' must be between 1 and 1000, got " + applyGroup);
        }
    }
}
