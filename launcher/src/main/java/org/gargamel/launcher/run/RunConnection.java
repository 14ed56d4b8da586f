package org.gargamel.launcher.run;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.launcher.cluster.ClusterNetwork;
import org.gargamel.launcher.cluster.ClusterPlan;
import org.gargamel.launcher.cluster.ClusterStatistics;
import org.gargamel.launcher.cluster.FrontendPlan;
import org.gargamel.launcher.cluster.GargamelCluster;
import org.gargamel.launcher.cluster.LocalGargamelCluster;
import org.gargamel.launcher.cluster.RemoteGargamelCluster;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.DirectExecutor;
import org.gargamel.tpcc.workload.PgwireExecutor;

/**
 * What the terminals of one run talk to, open for the length of the run: the one place where a run without middleware
 * and a run through Gargamel differ ({@link TpccRun} is the same for both).
 */
abstract sealed class RunConnection implements AutoCloseable
        permits RunConnection.Direct, RunConnection.ThroughGargamel {
    /** How long the replicas may take to apply the last write-sets after the terminals stop. */
    static final Duration QUIESCENCE_TIMEOUT = Duration.ofMinutes(2);

    /**
     * Opens the request's target on the run's databases {@code urls}; a Gargamel cluster is started (with {@code
     * schedulers} schedulers, one active) or joined.
     */
    static RunConnection open(RunRequest request, List<String> urls, int schedulers, PrintStream err)
            throws IOException, InterruptedException {
        return open(request, urls, schedulers, ClusterNetwork.LOOPBACK, err);
    }

    /** As above, a cluster started here placed on {@code network} (partition faults: each node in a namespace). */
    static RunConnection open(
            RunRequest request, List<String> urls, int schedulers, ClusterNetwork network, PrintStream err)
            throws IOException, InterruptedException {
        if (request.target() instanceof RunTarget.Direct direct) {
            return new Direct(direct, urls.get(0));
        }
        RunTarget.Gargamel gargamel = (RunTarget.Gargamel) request.target();
        // Servers started here (embedded, Testcontainers) hold throw-away data: their log need not reach the disk.
        boolean durableLog = request.backend() == PostgresBackend.EXTERNAL;
        // Through pgwire the terminals log in to a front end started for this run, with a password made for it.
        FrontendPlan frontend = gargamel.client() == RunTarget.Client.PGWIRE
                ? new FrontendPlan("127.0.0.1", 0, "tpcc", FrontendPlan.newPassword(), urls.get(0))
                : null;
        return new ThroughGargamel(
                gargamel,
                ThroughGargamel.connect(
                        gargamel, urls, request.out().resolve("logs"), durableLog, schedulers, frontend, network, err),
                urls.size(),
                frontend,
                request.warehouses(),
                err);
    }

    /** For the line that starts the run: "running TPC-C {description} 2 warehouse(s), ...". */
    abstract String description();

    /** The executor of terminal {@code terminal} (0-based). */
    abstract CallExecutor executor(int terminal);

    /** Calls {@code listener} (once) if the target fails during the run, so the terminals stop at once. */
    abstract void onFailure(Runnable listener);

    /**
     * The terminals have stopped: fails if the target failed during the run; unless {@code interrupted}, waits until
     * every replica has applied everything; ends the run's use of the target. Returns what the nodes counted, for
     * a target that has nodes.
     */
    abstract Optional<ClusterStatistics> finish(boolean interrupted) throws InterruptedException;

    /** The line printed before the checks after the run. */
    abstract String checkingMessage();

    /** A multi-site run's response times by site; empty otherwise. */
    Optional<SiteLatencies> siteLatencies() {
        return Optional.empty();
    }

    /** The cluster this run started on this machine, whose processes a chaos run may kill; empty otherwise. */
    Optional<LocalGargamelCluster> localCluster() {
        return Optional.empty();
    }

    /** The error when the checks after the run fail. */
    abstract String checkFailedMessage();

    /** Stops what the run started (also on failure and Ctrl-C, from the shutdown hook); idempotent. */
    @Override
    public abstract void close();

    /** One PostgreSQL server, a connection per terminal, no middleware. */
    static final class Direct extends RunConnection {
        private final RunTarget.Direct target;
        private final String url;

        private Direct(RunTarget.Direct target, String url) {
            this.target = target;
            this.url = url;
        }

        @Override
        String description() {
            return "direct on " + Secrets.maskUrl(url) + ":";
        }

        @Override
        CallExecutor executor(int terminal) {
            try {
                return new DirectExecutor(url, target.isolation(), target.maxRetries());
            } catch (SQLException e) {
                throw new CommandFailedException(
                        "terminal " + (terminal + 1) + " cannot connect to " + Secrets.maskUrl(url) + ": "
                                + e.getMessage(),
                        e);
            }
        }

        @Override
        void onFailure(Runnable listener) {
            // A terminal's failure shows in its calls' outcomes; there is nothing else to fail.
        }

        @Override
        Optional<ClusterStatistics> finish(boolean interrupted) {
            return Optional.empty();
        }

        @Override
        String checkingMessage() {
            return "checking consistency and computing table checksums ...";
        }

        @Override
        String checkFailedMessage() {
            return "the TPC-C consistency check failed after the run";
        }

        @Override
        public void close() {
            // Each terminal closes its own connection.
        }
    }

    /** The scheduler and one node per replica, started here or already running; the terminals use the client. */
    static final class ThroughGargamel extends RunConnection {
        private final RunTarget.Gargamel target;
        private final GargamelCluster cluster;
        private final int replicas;
        /** The front end the terminals call through (pgwire), or null (the library). */
        private final FrontendPlan frontend;

        private final int warehouses;
        /** With several sites: each terminal calls through its site's client, timed by site. */
        private final SiteLatencies siteLatencies;

        private final PrintStream err;

        private ThroughGargamel(
                RunTarget.Gargamel target,
                GargamelCluster cluster,
                int replicas,
                FrontendPlan frontend,
                int warehouses,
                PrintStream err) {
            this.target = target;
            this.cluster = cluster;
            this.replicas = replicas;
            this.frontend = frontend;
            this.warehouses = warehouses;
            this.siteLatencies = target.sites() == null ? null : new SiteLatencies(target.sites());
            this.err = err;
        }

        @Override
        Optional<SiteLatencies> siteLatencies() {
            return Optional.ofNullable(siteLatencies);
        }

        @Override
        Optional<LocalGargamelCluster> localCluster() {
            return cluster instanceof LocalGargamelCluster local ? Optional.of(local) : Optional.empty();
        }

        /** Starts the scheduler and nodes here, or joins the running cluster given by --scheduler. */
        private static GargamelCluster connect(
                RunTarget.Gargamel target,
                List<String> urls,
                Path logs,
                boolean durableLog,
                int schedulers,
                FrontendPlan frontend,
                ClusterNetwork network,
                PrintStream err)
                throws IOException, InterruptedException {
            if (!target.joinsRunningCluster()) {
                ClusterPlan plan = new ClusterPlan(
                                target.mode(),
                                target.isolation(),
                                TpccRules.writeTo(logs, target.tpccRules()),
                                urls,
                                target.workers(),
                                logs,
                                durableLog,
                                schedulers)
                        .withApply(target.appliers(), target.applyGroup())
                        .withSites(target.sites())
                        .withJit(target.jit())
                        .withNetwork(network);
                return LocalGargamelCluster.start(frontend == null ? plan : plan.withFrontend(frontend), err);
            }
            String addresses = String.join(", ", target.schedulers());
            err.println("joining the Gargamel cluster through the scheduler(s) at " + addresses + " ...");
            try {
                return RemoteGargamelCluster.connect(
                        target.schedulers().stream()
                                .map(GroupConfig::parseHostPort)
                                .toList(),
                        target.bind(),
                        urls.size());
            } catch (InterruptedException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CommandFailedException("cannot join the cluster at " + addresses + ": " + e.getMessage(), e);
            }
        }

        @Override
        String description() {
            String sites = target.sites() == null
                    ? ""
                    : ", " + target.sites().count() + " sites " + target.sites().delayMillis() + " ms apart, "
                            + target.sites().agreement() + ", warehouses "
                            + target.sites().warehousesPerSite();
            return "through Gargamel (" + target.modeName() + ", " + target.isolationName()
                    + (frontend == null ? "" : ", pgwire") + sites + "): " + replicas + " replica(s),";
        }

        @Override
        CallExecutor executor(int terminal) {
            if (siteLatencies != null) {
                int site = target.sites().siteOfTerminal(terminal, warehouses);
                return siteLatencies.timing(site, ((LocalGargamelCluster) cluster).executor(site));
            }
            if (frontend == null) {
                return cluster.executor();
            }
            String url = frontend.jdbcUrl(((LocalGargamelCluster) cluster).frontendPort());
            try {
                return new PgwireExecutor(url, frontend.user(), frontend.password());
            } catch (SQLException e) {
                throw new CommandFailedException(
                        "terminal " + (terminal + 1) + " cannot connect to the front end at " + url + ": "
                                + e.getMessage(),
                        e);
            }
        }

        @Override
        void onFailure(Runnable listener) {
            cluster.onFailure(listener);
        }

        @Override
        Optional<ClusterStatistics> finish(boolean interrupted) throws InterruptedException {
            if (cluster.failure() != null) {
                throw new CommandFailedException("the run stopped: " + cluster.failure());
            }
            if (!interrupted) {
                err.println("waiting until every replica has applied every write-set ...");
                cluster.awaitQuiescence(QUIESCENCE_TIMEOUT);
                if (cluster instanceof LocalGargamelCluster local && local.shippingDrain() != null) {
                    err.printf(
                            "the sites' shipping drained %d ms after the schedulers were quiet%n",
                            local.shippingDrain().toMillis());
                }
            }
            return Optional.of(cluster.stop());
        }

        @Override
        String checkingMessage() {
            return "checking consistency on every replica and comparing the replicas ...";
        }

        @Override
        String checkFailedMessage() {
            return "the replicas are inconsistent or differ after the run (see above)";
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}
