package org.gargamel.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.nio.file.Path;
import org.gargamel.common.group.ClusterSecurity;

/**
 * Key {@code clusterSecurity} of the scheduler's, the nodes' and the front ends' configuration files (docs/protocol.md,
 * Cluster security): the same secret everywhere.
 * <pre>
 * clusterSecurity:
 *   secretFile: cluster.secret     # at least 16 bytes, e.g. openssl rand -base64 32; beside the file if relative
 * </pre>
 */
public record ClusterSecuritySettings(String secretFile) {
    @JsonCreator
    public ClusterSecuritySettings(@JsonProperty("secretFile") String secretFile) {
        this.secretFile = secretFile;
    }

    /** The same settings with a relative {@code secretFile} read beside {@code configFile}. */
    public ClusterSecuritySettings besides(Path configFile) {
        return new ClusterSecuritySettings(ConfigFiles.resolveBeside(configFile, secretFile));
    }

    /** Reads the secret; errors name the key and the file, never the secret. */
    public ClusterSecurity load() {
        if (secretFile == null) {
            throw new ConfigException("key 'clusterSecurity.secretFile' is required (a file holding the cluster's "
                    + "shared secret, the same at every scheduler, node and front end)");
        }
        try {
            return ClusterSecurity.fromSecretFile(Path.of(secretFile));
        } catch (IOException e) {
            throw new ConfigException("key 'clusterSecurity.secretFile': cannot read " + secretFile + ": " + e);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("key 'clusterSecurity.secretFile': " + e.getMessage());
        }
    }

    /** The secret of {@code settings}, or null when there is none (the groups are then open: docs/protocol.md). */
    public static ClusterSecurity loadOrNull(ClusterSecuritySettings settings) {
        return settings == null ? null : settings.load();
    }
}
