package org.gargamel.launcher.cluster;

import java.nio.file.Path;
import java.util.List;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;

/**
 * What {@link LocalGargamelCluster} starts: one node per JDBC URL (replica), each with {@code workers} workers, and one
 * scheduler, in {@code mode} and {@code isolation}, all classifying with the rules file {@code rules}. Configuration
 * files and process logs go to {@code directory}.
 */
public record ClusterPlan(
        Mode mode, Isolation isolation, Path rules, List<String> jdbcUrls, int workers, Path directory) {
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
