package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.gargamel.common.group.ClusterSecurity;

/**
 * The security of a local cluster's groups: a fresh secret per run, and the {@code clusterSecurity} section of each
 * process's configuration. Invariant: secured unless {@value LocalGargamelCluster#SECURITY_VARIABLE}{@code =off};
 * with security off there is neither a secret nor a section (both null).
 */
final class GroupSecurity {
    private GroupSecurity() {}

    /** A fresh secret per run: the groups are authenticated and encrypted unless switched off for a measurement. */
    static Path newSecret(Path directory) throws IOException {
        return securityOff() ? null : ClusterSecurity.writeNewSecret(directory.resolve("cluster.secret"));
    }

    /** The {@code clusterSecurity} section naming {@code secret}, or null without one. */
    static Map<String, Object> settings(Path secret) {
        return secret == null
                ? null
                : Map.of("secretFile", secret.toAbsolutePath().toString());
    }

    /**
     * {@value LocalGargamelCluster#SECURITY_VARIABLE}{@code =off} starts the cluster with open groups, to measure what
     * security costs; anything else, or nothing, secures them.
     */
    private static boolean securityOff() {
        return "off".equalsIgnoreCase(System.getenv(LocalGargamelCluster.SECURITY_VARIABLE));
    }
}
