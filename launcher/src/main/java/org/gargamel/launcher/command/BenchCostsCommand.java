package org.gargamel.launcher.command;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.costs.CostsBench;
import org.gargamel.launcher.costs.CostsPlan;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.Usage;
import org.gargamel.node.NodeConfig;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.tpcc.workload.DirectIsolation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel bench costs} (issue 40): the CPU per call of each of Gargamel's roles at each replica count, beside
 * PostgreSQL's own logical replication on the same machine in the same run ({@link CostsBench}). Each Gargamel run is
 * the one {@code tpcc run --replicas R --warehouses W --terminals T --warmup D --duration D --seed S --out DIR/gargamel-R}
 * makes, except that the scheduler and node JVMs compile with both JIT tiers ({@link ChildJit#SERVER}); the native run
 * is {@code tpcc run --mode direct} with the same options, on a publisher. Every option is checked before anything
 * starts.
 */
@Command(
        name = "costs",
        description = "CPU per call by role (client, scheduler, nodes, PostgreSQL) at each replica count, JIT"
                + " excluded, beside PostgreSQL's own logical replication; writes DIR/costs.json",
        customSynopsis =
                "scripts/gargamel bench costs [--replicas 1,3] [--warehouses 1] [--terminals 10] [--warmup 120s]"
                        + " [--duration 30s] [--seed 1] [--native|--no-native] [--out DIR]")
final class BenchCostsCommand implements Callable<Integer> {
    /** The warm-up a server's JIT needs on 2 cores before its CPU is its steady state's (issue 40: at least 60 s). */
    static final String DEFAULT_WARMUP = "120s";

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--replicas",
            paramLabel = "R,...",
            split = ",",
            defaultValue = "1,3",
            description = "the replica counts to run, in order (default ${DEFAULT-VALUE}; with 1 and more, the CPU per"
                    + " foreign write-set is derived)")
    private List<Integer> replicas = new ArrayList<>();

    @Option(
            names = "--warehouses",
            paramLabel = "W",
            defaultValue = "1",
            description = "number of warehouses (default ${DEFAULT-VALUE})")
    private int warehouses;

    @Option(names = "--terminals", paramLabel = "T", description = "closed-loop terminals (default 10 per warehouse)")
    private Integer terminals;

    @Option(
            names = "--warmup",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = DEFAULT_WARMUP,
            description = "each run's unmeasured start, long enough for C2 (default ${DEFAULT-VALUE})")
    private Duration warmup;

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = "30s",
            description = "each run's measurement interval (default ${DEFAULT-VALUE})")
    private Duration duration;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "seed of the terminals' random streams, the same in every run (default ${DEFAULT-VALUE})")
    private long seed;

    @Option(
            names = "--native",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "also PostgreSQL's own logical replication of the same workload (default; --no-native: not)")
    private boolean nativeRun;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "where costs.json and each run's files go (default out/bench-costs-<time>)")
    private Path out;

    private final CommandContext context;

    BenchCostsCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        return new CostsBench(plan(), context.out(), context.err()).execute();
    }

    /** The runs the options ask for, checked; nothing started. */
    CostsPlan plan() {
        if (replicas.isEmpty()) {
            throw Usage.error(spec, "--replicas needs at least one replica count");
        }
        for (int count : replicas) {
            Usage.range(spec, "--replicas", count, 1, ReplicaOptions.MAX_REPLICAS);
        }
        if (replicas.stream().distinct().count() != replicas.size()) {
            throw Usage.error(spec, "--replicas names a count twice: " + replicas);
        }
        int warehouseCount = Usage.range(spec, "--warehouses", warehouses, 1, TpccCommand.MAX_WAREHOUSES);
        int terminalCount =
                Usage.range(spec, "--terminals", terminals == null ? 10 * warehouseCount : terminals, 1, 2_000);
        if (duration.isZero() || duration.isNegative()) {
            throw Usage.error(spec, "--duration must be positive, got " + duration);
        }
        if (warmup.isNegative()) {
            throw Usage.error(spec, "--warmup must not be negative, got " + warmup);
        }
        Path directory = RunOptions.outDirectory(spec, out, "bench-costs");
        List<RunRequest> gargamelRuns = new ArrayList<>();
        for (int count : replicas) {
            gargamelRuns.add(request(
                    gargamelTarget(), count, warehouseCount, terminalCount, directory.resolve("gargamel-" + count)));
        }
        Optional<RunRequest> nativeRequest = nativeRun
                ? Optional.of(request(nativeTarget(), 1, warehouseCount, terminalCount, directory.resolve("native")))
                : Optional.empty();
        return new CostsPlan(
                commandLine(warehouseCount, terminalCount, directory), gargamelRuns, nativeRequest, directory);
    }

    /**
     * What {@code tpcc run} starts without {@code --mode}, {@code --isolation}, {@code --workers}, {@code --client},
     * {@code --tpcc-rules}, {@code --appliers} or {@code --apply-group} ({@link RunOptions}), with server JIT.
     */
    static RunTarget.Gargamel gargamelTarget() {
        return new RunTarget.Gargamel(
                Mode.GARGAMEL,
                Isolation.PSI,
                RunOptions.DEFAULT_WORKERS,
                List.of(),
                RunOptions.DEFAULT_BIND,
                RunTarget.Client.LIBRARY,
                RunTarget.Gargamel.DEFAULT_TPCC_RULES,
                1,
                NodeConfig.DEFAULT_APPLY_GROUP,
                null,
                ChildJit.SERVER);
    }

    /** What {@code tpcc run --mode direct} runs without {@code --isolation} or {@code --max-retries}. */
    static RunTarget.Direct nativeTarget() {
        return new RunTarget.Direct(DirectIsolation.READ_COMMITTED, RunOptions.DEFAULT_MAX_RETRIES);
    }

    /** {@code tpcc run}'s request for these options on embedded servers (load seed 1, as its default). */
    private RunRequest request(RunTarget target, int count, int warehouseCount, int terminalCount, Path directory) {
        return new RunRequest(
                target,
                count,
                List.of(),
                PostgresBackend.EMBEDDED,
                warehouseCount,
                terminalCount,
                warmup,
                duration,
                null,
                false,
                seed,
                1,
                directory,
                false);
    }

    /** The command line with every value, defaults included, for costs.json. */
    private String commandLine(int warehouseCount, int terminalCount, Path directory) {
        return "scripts/gargamel bench costs --replicas "
                + replicas.stream().map(String::valueOf).collect(Collectors.joining(",")) + " --warehouses "
                + warehouseCount + " --terminals " + terminalCount + " --warmup " + seconds(warmup) + " --duration "
                + seconds(duration) + " --seed " + seed + (nativeRun ? " --native" : " --no-native") + " --out "
                + directory;
    }

    private static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
    }
}
