package org.gargamel.scheduler.core;

/** Worker {@code index} (0-based) of node {@code node}. */
public record WorkerRef(String node, int index) {
    @Override
    public String toString() {
        return node + "#" + index;
    }
}
