package org.gargamel.launcher.command;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.run.BankRun;
import org.gargamel.launcher.run.BankRunRequest;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.Usage;
import org.gargamel.provisioning.PostgresBackend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel bank run}: loads the bank if the replicas are empty, starts a cluster on them (embedded PostgreSQL by
 * default), drives the terminals, checks the invariants on every replica and compares the replicas, prints a summary
 * and writes {@code DIR/result.json} ({@link BankRun}). Every option is checked before anything is started.
 */
@Command(
        name = "run",
        description = "run the bank's workload through a local Gargamel cluster and write DIR/result.json",
        customSynopsis = {
            "scripts/gargamel bank run [--replicas N] [--jdbc-url URL ...] [--terminals T] [--duration D]",
            "           [--branches B] [--accounts A] [--hot-accounts H] [--hot-percent P] [--mode M] [--isolation I]"
                    + " [--workers K] [--seed S] [--out DIR]"
        })
final class BankRunCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ReplicaOptions replicaOptions;

    @Option(
            names = "--terminals",
            paramLabel = "T",
            defaultValue = "16",
            description = "terminals (default ${DEFAULT-VALUE})")
    private int terminals;

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = "60s",
            description = "how long the terminals run, e.g. 30s, 2m (default ${DEFAULT-VALUE})")
    private Duration duration;

    @Mixin
    private BankScaleOptions scale;

    @Option(
            names = "--hot-accounts",
            paramLabel = "H",
            defaultValue = "10",
            description = "how many accounts are hot (default ${DEFAULT-VALUE})")
    private int hotAccounts;

    @Option(
            names = "--hot-percent",
            paramLabel = "P",
            defaultValue = "20",
            description = "percent of account choices that fall on a hot account (default ${DEFAULT-VALUE})")
    private int hotPercent;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            defaultValue = "gargamel",
            description = "gargamel (default), round-robin or centralized")
    private String mode;

    @Option(names = "--isolation", paramLabel = "LEVEL", defaultValue = "psi", description = "psi (default) or si")
    private String isolation;

    @Option(
            names = "--workers",
            paramLabel = "K",
            defaultValue = "" + RunOptions.DEFAULT_WORKERS,
            description = "workers per node (default ${DEFAULT-VALUE})")
    private int workers;

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "seed of the terminals' random streams (default: the clock)")
    private Long seed;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "where result.json and the logs go (default out/bank-<time>)")
    private Path out;

    private final CommandContext context;

    BankRunCommand(CommandContext context) {
        this.context = context;
    }

    /** The run the options ask for, checked; nothing started. */
    BankRunRequest request() {
        List<String> jdbcUrls = replicaOptions.urls(spec);
        int replicaCount = replicaOptions.count(spec);
        Mode parsedMode;
        Isolation parsedIsolation;
        try {
            parsedMode = Mode.parse(mode);
            parsedIsolation = Isolation.parse(isolation);
        } catch (IllegalArgumentException e) {
            throw Usage.error(spec, e.getMessage());
        }
        Usage.range(spec, "--terminals", terminals, 1, 2_000);
        scale.check(spec);
        Usage.range(spec, "--hot-accounts", hotAccounts, 2, 1_000_000);
        Usage.range(spec, "--hot-percent", hotPercent, 0, 100);
        Usage.range(spec, "--workers", workers, 1, 256);
        if (duration.isZero() || duration.isNegative()) {
            throw Usage.error(spec, "--duration must be positive, got " + duration);
        }
        return new BankRunRequest(
                replicaCount,
                jdbcUrls,
                jdbcUrls.isEmpty() ? PostgresBackend.EMBEDDED : PostgresBackend.EXTERNAL,
                parsedMode,
                parsedIsolation,
                workers,
                scale.branches,
                scale.accounts,
                terminals,
                duration,
                hotAccounts,
                hotPercent,
                seed == null ? System.nanoTime() : seed,
                RunOptions.outDirectory(spec, out, "bank"));
    }

    @Override
    public Integer call() {
        return new BankRun(request(), context.out(), context.err()).execute();
    }
}
