package org.gargamel.node;

import java.util.List;
import org.gargamel.common.config.ConfigException;

/**
 * The write-set log's members and storage (keys {@code replicas}, {@code dataDir}, {@code logFsync}): every node's
 * name, the same list at every node (the log commits an entry once a majority of them hold it); where this node keeps
 * the log (null: in memory); whether each append is forced to disk. A section of {@link NodeConfig}.
 */
public record LogSettings(List<String> replicas, String dataDir, boolean fsync) {
    public LogSettings {
        replicas = replicas == null ? null : List.copyOf(replicas);
    }

    /** Key {@code replicas} names every node once, this one ({@code name}) among them. */
    void validate(String name) {
        if (replicas == null || replicas.isEmpty()) {
            throw new ConfigException("key 'replicas' is required: the names of all the nodes, the same list at every "
                    + "node (the write-set log commits an entry once a majority of them hold it)");
        }
        if (!replicas.contains(name)) {
            throw new ConfigException("key 'replicas' " + replicas + " does not name this node, '" + name + "'");
        }
        if (replicas.stream().distinct().count() != replicas.size()) {
            throw new ConfigException("key 'replicas' " + replicas + " names a node twice");
        }
    }

    /**
     * Whether the write-set log is on disk and forces each append to it: then the log, held by a majority, makes an
     * acknowledged transaction durable, and the node's commits need not wait for PostgreSQL's WAL flush
     * (docs/node.md, Durability).
     */
    public boolean durable() {
        return dataDir != null && fsync;
    }
}
