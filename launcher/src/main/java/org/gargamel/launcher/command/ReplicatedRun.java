package org.gargamel.launcher.command;

import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.launcher.GargamelMain;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.launcher.cluster.ClusterPlan;
import org.gargamel.launcher.cluster.ClusterStatistics;
import org.gargamel.launcher.cluster.GargamelCluster;
import org.gargamel.launcher.cluster.LocalGargamelCluster;
import org.gargamel.launcher.cluster.RemoteGargamelCluster;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.result.RunDescription;
import org.gargamel.tpcc.result.RunResult;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.result.RunSummary;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.terminal.RunSettings;
import org.gargamel.tpcc.terminal.TerminalEmulator;

/**
 * A TPC-C run through Gargamel: N PostgreSQL replicas (embedded or given), loaded identically; the scheduler and
 * one node per replica as separate JVMs talking JGroups over loopback; the terminals submit through the client
 * library. After the run it waits until every replica has applied everything, stops the processes, checks the
 * consistency conditions on every replica and compares the replicas table by table.
 */
final class ReplicatedRun {
    /** How long the replicas may take to apply the last write-sets after the terminals stop. */
    static final Duration QUIESCENCE_TIMEOUT = Duration.ofMinutes(2);

    private final TpccRunCommand.Request request;
    private final PrintStream out;
    private final PrintStream err;

    ReplicatedRun(TpccRunCommand.Request request, PrintStream out, PrintStream err) {
        this.request = request;
        this.out = out;
        this.err = err;
    }

    int execute() {
        try (PostgresCluster databases = TpccRunCommand.startCluster(request, err)) {
            List<String> urls = databases.jdbcUrls();
            LoadInfo load = TpccRunCommand.prepareReplicas(urls, request, err);
            NURandConstants runConstants = NURandConstants.forRun(load.loadConstants(), new SplittableRandom(request.seed()));
            RunSettings settings = new RunSettings(request.warehouses(), request.terminals(), request.warmup(),
                    request.duration(), request.rate(), request.keying(), request.seed(), runConstants,
                    Clock.systemDefaultZone());
            Path logs = request.out().resolve("logs");
            ClusterPlan plan = new ClusterPlan(Mode.parse(request.mode()), Isolation.parse(request.isolation()),
                    TpccRules.writeTo(logs), urls, request.workers(), logs);
            String startedAt = LocalDateTime.now().toString();
            RunStatistics statistics;
            double measuredSeconds;
            ClusterStatistics cluster;
            AtomicBoolean interrupted = new AtomicBoolean();
            try (GargamelCluster gargamel = connect(plan, urls.size())) {
                TerminalEmulator emulator = new TerminalEmulator(settings, terminal -> gargamel.executor());
                gargamel.onFailure(emulator::stop);
                Thread stopOnInterrupt = new Thread(() -> {
                    interrupted.set(true);
                    emulator.stop();
                    gargamel.close();
                }, "tpcc-run-interrupt");
                Runtime.getRuntime().addShutdownHook(stopOnInterrupt);
                err.printf("running TPC-C through Gargamel (%s, %s): %d replica(s), %d warehouse(s), %s, %s%n",
                        request.mode(), request.isolation(), urls.size(), request.warehouses(),
                        request.rate() == null ? request.terminals() + " terminal(s)"
                                : request.rate() + " calls/s over " + request.terminals() + " connection(s)",
                        request.interval());
                statistics = emulator.run();
                measuredSeconds = emulator.measuredSeconds();
                if (gargamel.failure() != null) {
                    throw new CommandFailedException("the run stopped: " + gargamel.failure());
                }
                if (!interrupted.get()) {
                    err.println("waiting until every replica has applied every write-set ...");
                    gargamel.awaitQuiescence(QUIESCENCE_TIMEOUT);
                }
                cluster = gargamel.stop();
                removeHook(stopOnInterrupt);
            }
            RunDescription description = new RunDescription(request.mode(), request.isolation(), urls.size(),
                    request.warehouses(), request.terminals(), request.rate(), request.warmup(), request.seed(), startedAt);
            RunResult result = RunResult.of(description, statistics, measuredSeconds)
                    .withServerCounters(cluster.conflictAborts(), cluster.retries());
            out.print(RunSummary.render(result));
            out.print(cluster.render());
            out.flush();
            if (interrupted.get()) {
                err.println("gargamel: interrupted; the partial run above is not checked and no result.json is written");
                return GargamelMain.EXIT_INTERRUPTED;
            }
            err.println("checking consistency on every replica and comparing the replicas ...");
            CheckReport check = new CheckRunner().run(urls);
            java.util.Map<String, Object> checks = check.toResultMap();
            result = result.withChecks(checks.get("consistency"), checks.get("convergence"));
            Path resultFile = request.out().resolve("result.json");
            result.write(resultFile);
            cluster.write(request.out().resolve("nodes.json"));
            out.print(check.render());
            out.println("result: " + resultFile);
            if (!check.passed()) {
                err.println("gargamel: error: the replicas are inconsistent or differ after the run (see above)");
                return GargamelMain.EXIT_FAILED;
            }
            if (result.errors() > 0) {
                err.println("gargamel: error: " + result.errors() + " call(s) failed unexpectedly; first: "
                        + result.firstError());
                return GargamelMain.EXIT_FAILED;
            }
            return GargamelMain.EXIT_OK;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return GargamelMain.EXIT_INTERRUPTED;
        } catch (IOException e) {
            throw new CommandFailedException("cannot write the results under " + request.out() + ": " + e.getMessage(), e);
        }
    }

    /** Starts the scheduler and nodes here, or joins the running cluster given by --scheduler. */
    private GargamelCluster connect(ClusterPlan plan, int replicas) throws IOException, InterruptedException {
        if (request.scheduler() == null) {
            return LocalGargamelCluster.start(plan, err);
        }
        err.println("joining the Gargamel cluster through the scheduler at " + request.scheduler() + " ...");
        try {
            return RemoteGargamelCluster.connect(org.gargamel.common.group.GroupConfig.parseHostPort(request.scheduler()),
                    request.bind(), replicas);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new CommandFailedException("cannot join the cluster at " + request.scheduler() + ": " + e.getMessage(), e);
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already (Ctrl-C): the hook has run.
        }
    }
}
