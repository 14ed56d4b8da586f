package org.gargamel.launcher.command;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.launcher.run.ApplyLagRun;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.Usage;
import org.gargamel.node.NodeConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel apply-lag}: C5's adversarial workload (many independent inserts plus one hot row) through a local
 * cluster, each replica's apply lag sampled every second ({@link ApplyLagRun}; docs/node.md, Parallel apply). Every
 * option is checked before anything is started.
 */
@Command(
        name = "apply-lag",
        description = "measure how far each replica's apply falls behind under many independent inserts plus one hot "
                + "row (C5's workload); writes DIR/lag.json and DIR/lag.html",
        customSynopsis = {
            "scripts/gargamel apply-lag [--replicas N] [--jdbc-url URL ...] [--appliers K] [--apply-group G]"
                    + " [--workers W] [--terminals T]",
            "           [--duration D] [--hot-percent P] [--rows R] [--seed S] [--out DIR]"
        })
public final class ApplyLagCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ReplicaOptions replicaOptions;

    @Option(
            names = "--appliers",
            paramLabel = "K",
            defaultValue = "4",
            description = "connections per node applying the other replicas' write-sets (default ${DEFAULT-VALUE}; "
                    + "1: one by one, in log order)")
    private int appliers;

    @Option(
            names = "--apply-group",
            paramLabel = "G",
            defaultValue = "" + NodeConfig.DEFAULT_APPLY_GROUP,
            description = "with one applier, at most G delivered write-sets applied in one transaction (default "
                    + "${DEFAULT-VALUE}; 1: each in its own)")
    private int applyGroup;

    @Option(
            names = "--workers",
            paramLabel = "W",
            defaultValue = "" + RunOptions.DEFAULT_WORKERS,
            description = "workers per node (default ${DEFAULT-VALUE})")
    private int workers;

    @Option(
            names = "--terminals",
            paramLabel = "T",
            defaultValue = "16",
            description = "terminals, each calling without pause (default ${DEFAULT-VALUE})")
    private int terminals;

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = "5m",
            description = "how long the terminals run, e.g. 60s, 5m (default ${DEFAULT-VALUE})")
    private Duration duration;

    @Option(
            names = "--hot-percent",
            paramLabel = "P",
            defaultValue = "10",
            description = "percent of calls that update the one hot row; the others insert (default ${DEFAULT-VALUE})")
    private int hotPercent;

    @Option(
            names = "--rows",
            paramLabel = "R",
            defaultValue = "50",
            description = "events each insert call inserts (default ${DEFAULT-VALUE})")
    private int rows;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the terminals' choices (default: the clock)")
    private Long seed;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "where lag.json, lag.html and the logs go (default out/apply-lag-<time>)")
    private Path out;

    private final CommandContext context;

    ApplyLagCommand(CommandContext context) {
        this.context = context;
    }

    /** The run the options ask for, checked; nothing started. */
    ApplyLagRun.Request request() {
        List<String> jdbcUrls = replicaOptions.urls(spec);
        int replicaCount = replicaOptions.count(spec);
        if (replicaCount < 2) {
            throw Usage.error(spec, "--replicas must be at least 2: with one replica nothing is applied");
        }
        Usage.range(spec, "--appliers", appliers, 1, 64);
        Usage.range(spec, "--apply-group", applyGroup, 1, 1000);
        Usage.range(spec, "--workers", workers, 1, 256);
        Usage.range(spec, "--terminals", terminals, 1, 2_000);
        Usage.range(spec, "--hot-percent", hotPercent, 0, 100);
        Usage.range(spec, "--rows", rows, 1, 10_000);
        if (duration.toSeconds() < 2) {
            throw Usage.error(
                    spec, "--duration must be at least 2s (the lag is sampled every second), got " + duration);
        }
        return new ApplyLagRun.Request(
                replicaCount,
                jdbcUrls,
                appliers,
                applyGroup,
                workers,
                terminals,
                duration,
                hotPercent,
                rows,
                seed == null ? System.nanoTime() : seed,
                RunOptions.outDirectory(spec, out, "apply-lag"));
    }

    @Override
    public Integer call() {
        return new ApplyLagRun(request(), context.out(), context.err()).execute();
    }
}
