package org.gargamel.tpcc.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link LocalGargamelCluster} starts: one node per JDBC URL (replica), each with {@code workers} workers,
 * and one scheduler, in {@code mode} (gargamel, round-robin, centralized) and {@code isolation} (psi, si).
 * Configuration files and process logs go to {@code directory}.
 */
public record ClusterPlan(String mode, String isolation, List<String> jdbcUrls, int workers, Path directory) {
    public ClusterPlan {
        jdbcUrls = List.copyOf(jdbcUrls);
        if (jdbcUrls.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one replica");
        }
    }

    public int replicas() {
        return jdbcUrls.size();
    }
}
