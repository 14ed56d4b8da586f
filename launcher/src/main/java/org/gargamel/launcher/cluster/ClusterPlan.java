package org.gargamel.launcher.cluster;

import java.nio.file.Path;
import java.util.List;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.node.NodeConfig;

/**
 * What {@link LocalGargamelCluster} starts: one node per JDBC URL (replica), each with {@code workers} workers, and
 * {@code schedulers} schedulers (the first active, any other standing by: docs/protocol.md, Scheduler failover), in {@code mode} and {@code isolation}, all classifying with the rules file {@code rules}. Configuration
 * files, process logs and the nodes' write-set logs go to {@code directory}; {@code durableLog} forces each log append
 * to disk (off for throw-away embedded servers, whose own data is not durable either). {@code frontend}, when not
 * null, adds a PostgreSQL wire-protocol front end process (docs/frontend.md) once the nodes serve. {@code jit}: the
 * JIT compilers of the scheduler and node JVMs ({@link ChildJit#QUICK_START} unless a run asks for a server's).
 * {@code network}: where the processes live ({@link ClusterNetwork#LOOPBACK}, or each node in a network namespace of
 * its own for partition faults).
 */
public record ClusterPlan(
        Mode mode,
        Isolation isolation,
        Path rules,
        List<String> jdbcUrls,
        int workers,
        Path directory,
        boolean durableLog,
        int schedulers,
        FrontendPlan frontend,
        int appliers,
        int applyGroup,
        SitesPlan sites,
        ChildJit jit,
        ClusterNetwork network) {
    /** A cluster without a front end, each node applying with one connection. */
    public ClusterPlan(
            Mode mode,
            Isolation isolation,
            Path rules,
            List<String> jdbcUrls,
            int workers,
            Path directory,
            boolean durableLog,
            int schedulers) {
        this(
                mode,
                isolation,
                rules,
                jdbcUrls,
                workers,
                directory,
                durableLog,
                schedulers,
                null,
                1,
                NodeConfig.DEFAULT_APPLY_GROUP,
                null,
                ChildJit.QUICK_START,
                ClusterNetwork.LOOPBACK);
    }

    /** This plan with a front end. */
    public ClusterPlan withFrontend(FrontendPlan plan) {
        return withOptions(plan, appliers, applyGroup, sites, jit, network);
    }

    /**
     * This plan with each node applying the others' write-sets on {@code connections} connections, and, with one, at
     * most {@code groupLimit} delivered write-sets per transaction (docs/node.md, Parallel apply and Apply groups).
     */
    public ClusterPlan withApply(int connections, int groupLimit) {
        return withOptions(frontend, connections, groupLimit, sites, jit, network);
    }

    /**
     * This plan as several sites ({@code plan}; null: one): a scheduler per site, the nodes split among the sites in
     * order (docs/multisite.md).
     */
    public ClusterPlan withSites(SitesPlan plan) {
        return withOptions(frontend, appliers, applyGroup, plan, jit, network);
    }

    /** This plan with the scheduler and node JVMs compiling with {@code compilers}. */
    public ClusterPlan withJit(ChildJit compilers) {
        return withOptions(frontend, appliers, applyGroup, sites, compilers, network);
    }

    /** This plan with its processes placed on {@code placement}. */
    public ClusterPlan withNetwork(ClusterNetwork placement) {
        return withOptions(frontend, appliers, applyGroup, sites, jit, placement);
    }

    /** This plan with the optional parts the withers change; the required parts stay. */
    private ClusterPlan withOptions(
            FrontendPlan frontendPlan,
            int applierCount,
            int groupLimit,
            SitesPlan sitesPlan,
            ChildJit compilers,
            ClusterNetwork placement) {
        return new ClusterPlan(
                mode,
                isolation,
                rules,
                jdbcUrls,
                workers,
                directory,
                durableLog,
                schedulers,
                frontendPlan,
                applierCount,
                groupLimit,
                sitesPlan,
                compilers,
                placement);
    }

    public ClusterPlan {
        jdbcUrls = List.copyOf(jdbcUrls);
        java.util.Objects.requireNonNull(jit, "jit");
        java.util.Objects.requireNonNull(network, "network");
        if (jdbcUrls.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one replica");
        }
        if (schedulers < 1) {
            throw new IllegalArgumentException("a cluster needs at least one scheduler, got " + schedulers);
        }
        if (sites != null && jdbcUrls.size() != sites.count() * sites.replicasPerSite()) {
            throw new IllegalArgumentException(sites.count() + " sites of " + sites.replicasPerSite() + " replica(s) "
                    + "need " + sites.count() * sites.replicasPerSite() + " databases, got " + jdbcUrls.size());
        }
        if (sites != null && (schedulers != 1 || frontend != null)) {
            throw new IllegalArgumentException("several sites run one scheduler each and no front end (yet)");
        }
        if (sites != null && !(network instanceof ClusterNetwork.Loopback)) {
            throw new IllegalArgumentException("several sites run on this host's loopback (no partitions yet)");
        }
    }

    /** The schedulers' process names: scheduler, scheduler-2, ...; with sites, scheduler-site-1, ... */
    public List<String> schedulerNames() {
        if (sites != null) {
            return sites.names().stream().map(site -> "scheduler-" + site).toList();
        }
        List<String> names = new java.util.ArrayList<>();
        for (int i = 1; i <= schedulers; i++) {
            names.add(i == 1 ? "scheduler" : "scheduler-" + i);
        }
        return List.copyOf(names);
    }

    public int replicas() {
        return jdbcUrls.size();
    }

    /** The nodes' names, node-1 .. node-N: also the members of their write-set log. */
    public List<String> nodeNames() {
        return nodeNames(replicas());
    }

    /** The names of the nodes of a cluster of {@code replicas} replicas: node-1 .. node-N. */
    public static List<String> nodeNames(int replicas) {
        List<String> names = new java.util.ArrayList<>();
        for (int i = 1; i <= replicas; i++) {
            names.add("node-" + i);
        }
        return List.copyOf(names);
    }
}
