package org.gargamel.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import org.gargamel.common.group.ClusterSecurity;

/**
 * Key {@code clusterSecurity} of the scheduler's, the nodes' and the front ends' configuration files (docs/protocol.md,
 * Cluster security): the same secret everywhere.
 * <pre>
 * clusterSecurity:
 *   secretFile: cluster.secret     # at least 16 bytes, e.g. openssl rand -base64 32; beside the file if relative
 * clusterSecurity: {open: true}    # or: open groups, said explicitly (a test network nobody else reaches)
 * </pre>
 * Without either, a process whose groups bind only to loopback addresses runs open groups (one machine: only its own
 * users reach them), and one bound to any other address refuses to start ({@link #requireWhereExposed}).
 */
public record ClusterSecuritySettings(String secretFile, boolean open) {
    @JsonCreator
    public ClusterSecuritySettings(@JsonProperty("secretFile") String secretFile, @JsonProperty("open") Boolean open) {
        this(secretFile, open != null && open);
    }

    /** The settings of a secret in {@code secretFile}. */
    public ClusterSecuritySettings(String secretFile) {
        this(secretFile, false);
    }

    /**
     * Refuses groups that other machines may reach without the cluster's secret: {@code groups} (each group's key, as
     * {@code control}, with its settings) bound to an address that is not loopback, while {@code settings} names no
     * secret and does not say {@code open: true}. The error names the key and the address.
     */
    public static void requireWhereExposed(ClusterSecuritySettings settings, Map<String, GroupSettings> groups) {
        if (settings != null && settings.open && settings.secretFile != null) {
            throw new ConfigException(
                    "keys 'clusterSecurity.secretFile' and 'clusterSecurity.open' contradict each other (remove one)");
        }
        if (settings != null && (settings.open || settings.secretFile != null)) {
            return;
        }
        for (Map.Entry<String, GroupSettings> group : groups.entrySet()) {
            GroupSettings bound = group.getValue();
            if (bound == null || !"tcp".equals(bound.transport()) || bound.bind() == null) {
                continue;
            }
            String host = bound.bind().contains(":")
                    ? bound.bind().substring(0, bound.bind().lastIndexOf(':'))
                    : bound.bind();
            if (!loopback(host)) {
                throw new ConfigException("key 'clusterSecurity' is required: key '" + group.getKey() + ".bind' is "
                        + bound.bind() + ", not a loopback address, and without the cluster's secret anyone who "
                        + "reaches it can submit or forge calls, inject write-sets and read everything "
                        + "(docs/protocol.md, Cluster security). Give clusterSecurity: {secretFile: FILE}, the same at "
                        + "every process, or clusterSecurity: {open: true} to run open groups on purpose");
            }
        }
    }

    private static boolean loopback(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            for (InetAddress address : InetAddress.getAllByName(bare)) {
                if (!address.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false; // not resolvable here: it may be another machine's name
        }
    }

    /** The same settings with a relative {@code secretFile} read beside {@code configFile}. */
    public ClusterSecuritySettings besides(Path configFile) {
        return new ClusterSecuritySettings(ConfigFiles.resolveBeside(configFile, secretFile), open);
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
        return settings == null || settings.open ? null : settings.load();
    }
}
