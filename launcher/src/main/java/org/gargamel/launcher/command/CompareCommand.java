package org.gargamel.launcher.command;

import org.gargamel.launcher.GargamelMain;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gargamel.launcher.command.CommandOptions;
import org.gargamel.launcher.command.UsageException;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.launcher.compare.CompareReport;
import org.gargamel.launcher.compare.CompareRun;
import org.gargamel.launcher.compare.DatabaseCopies;
import org.gargamel.launcher.compare.MachineDescription;
import org.gargamel.tpcc.result.RunResult;
import org.gargamel.tpcc.workload.DirectIsolation;

/**
 * {@code gargamel compare}: the same TPC-C workload through {@code direct}, {@code gargamel}, {@code round-robin}
 * and {@code centralized}, closed loop at 1 and 4 warehouses with 1 and 3 replicas, plus an open-loop sweep of the
 * incoming rate; writes {@code compare.json} and {@code compare.html}. Every run starts from a fresh copy of the
 * same loaded database, so runs do not see each other's orders.
 */
public final class CompareCommand {
    private static final long LOAD_SEED = 1;
    private static final long RUN_SEED = 42;
    private static final int REPLICAS = 3;

    private final PrintStream out;
    private final PrintStream err;

    public CompareCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** One run of the comparison, before it is executed. */
    record Plan(String mode, String isolation, int replicas, int warehouses, int terminals, Double rate) {
        String label() {
            return String.format(Locale.ROOT, "%s-%s-r%d-w%d-%s", mode, isolation, replicas, warehouses,
                    rate == null ? "t" + terminals : "rate" + rate.intValue());
        }
    }

    public int run(List<String> arguments) {
        CommandOptions spec = new CommandOptions("compare")
                .flag("--quick", "16 runs of 8 s (the baselines with 3 replicas only) and a short rate sweep: about 10 minutes on 2 cores")
                .value("--duration", "D", "length of each run (default 60s, 8s with --quick)")
                .value("--warmup", "D", "run each run this long first, unmeasured (default: none)")
                .repeatable("--jdbc-url", "URL", "three existing servers to use instead of embedded ones (databases are "
                        + "created and dropped on them; the user needs CREATEDB)")
                .value("--out", "DIR", "where compare.json, compare.html and each run's result go (default out/compare-<time>)")
                .flag("--help", "this text");
        CommandOptions.Parsed options = spec.parse(arguments);
        if (options.flag("--help")) {
            out.print("Usage: scripts/gargamel compare [--quick] [--warmup D] [--duration D] [--out DIR]\n" + spec.usage());
            return GargamelMain.EXIT_OK;
        }
        TpccCommand.requireNoPositional(options);
        boolean quick = options.flag("--quick");
        Duration duration = options.duration("--duration", Duration.ofSeconds(quick ? 8 : 60));
        Duration warmup = options.duration("--warmup", Duration.ZERO);
        List<String> servers = options.all("--jdbc-url");
        if (!servers.isEmpty() && servers.size() != REPLICAS) {
            throw new UsageException("compare needs exactly " + REPLICAS + " --jdbc-url (one per replica), got " + servers.size());
        }
        TpccCommand.requireDistinct(servers);
        Path directory = Path.of(options.string("--out",
                "out/compare-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw new UsageException("--out " + directory + " exists and is not a directory");
        }
        List<Plan> plans = plans(quick);
        String machine = MachineDescription.describe();
        err.printf("compare: %d runs of %s each on %s%n", plans.size(), TpccRunCommand.interval(warmup, duration),
                machine);
        List<CompareRun> results = new ArrayList<>();
        try (PostgresCluster cluster = servers.isEmpty() ? PostgresCluster.embedded(REPLICAS) : PostgresCluster.external(servers)) {
            DatabaseCopies copies = new DatabaseCopies(cluster.jdbcUrls());
            int loadedWarehouses = 0;
            for (int i = 0; i < plans.size(); i++) {
                Plan plan = plans.get(i);
                if (plan.warehouses() != loadedWarehouses) {
                    err.printf("loading the %d-warehouse template into %d servers ...%n", plan.warehouses(), REPLICAS);
                    copies.loadTemplates(plan.warehouses(), LOAD_SEED);
                    loadedWarehouses = plan.warehouses();
                }
                results.add(runOne(i + 1, plans.size(), plan, warmup, duration, copies, directory));
                new CompareReport(results, machine).write(directory);
            }
        } catch (SQLException e) {
            throw new CommandFailedException("cannot prepare the databases: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CommandFailedException("cannot write under " + directory + ": " + e.getMessage(), e);
        }
        CompareReport report = new CompareReport(results, machine);
        out.print(report.table());
        out.println("compare: " + directory.resolve("compare.json") + " and " + directory.resolve("compare.html"));
        boolean allGood = results.stream().allMatch(run -> run.consistent() && run.identical() && run.errors() == 0);
        if (!allGood) {
            err.println("gargamel: error: a run was inconsistent, diverged or had errors (see the table)");
            return GargamelMain.EXIT_FAILED;
        }
        return GargamelMain.EXIT_OK;
    }

    /**
     * The comparison's runs, ordered by warehouse count so each template is loaded once. Quick: Gargamel with 1 and 3
     * replicas, the baselines with 3 (each run costs about 25 s of setting up and checking besides its duration).
     */
    static List<Plan> plans(boolean quick) {
        List<Plan> plans = new ArrayList<>();
        for (int warehouses : new int[] {1, 4}) {
            int terminals = 10 * warehouses;
            plans.add(new Plan("direct", "read-committed", 1, warehouses, terminals, null));
            for (String mode : List.of("gargamel", "round-robin", "centralized")) {
                for (int replicas : new int[] {1, REPLICAS}) {
                    if (!quick || mode.equals("gargamel") || replicas == REPLICAS) {
                        plans.add(new Plan(mode, "psi", replicas, warehouses, terminals, null));
                    }
                }
            }
            if (!quick) {
                plans.add(new Plan("gargamel", "si", REPLICAS, warehouses, terminals, null));
            }
        }
        double[] rates = quick ? new double[] {150, 600} : new double[] {100, 200, 400, 800, 1200};
        for (double rate : rates) {
            plans.add(new Plan("direct", "read-committed", 1, 1, 20, rate));
            plans.add(new Plan("gargamel", "psi", REPLICAS, 1, 20, rate));
            plans.add(new Plan("round-robin", "psi", REPLICAS, 1, 20, rate));
        }
        plans.sort((a, b) -> Integer.compare(a.warehouses(), b.warehouses()));
        return plans;
    }

    private CompareRun runOne(int index, int total, Plan plan, Duration warmup, Duration duration, DatabaseCopies copies,
            Path directory)
            throws SQLException, IOException {
        List<String> urls = copies.copy(plan.warehouses(), plan.replicas());
        Path runDirectory = directory.resolve("runs").resolve(String.format(Locale.ROOT, "%02d-%s", index, plan.label()));
        Files.createDirectories(runDirectory);
        boolean direct = plan.mode().equals("direct");
        TpccRunCommand.Request request = new TpccRunCommand.Request(plan.mode(), plan.replicas(), urls,
                PostgresBackend.EXTERNAL, plan.warehouses(), plan.terminals(), warmup, duration, plan.rate(),
                plan.isolation(), direct ? DirectIsolation.parse(plan.isolation()) : null, TpccRunCommand.DEFAULT_WORKERS,
                false, RUN_SEED, LOAD_SEED, 10, runDirectory, null, null, true);
        err.printf("[%d/%d] %-12s %-14s %d replica(s), %d wh, %s ... ", index, total, plan.mode(), plan.isolation(),
                plan.replicas(), plan.warehouses(), plan.rate() == null ? plan.terminals() + " terminals" : plan.rate() + " calls/s");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int code;
        try (PrintStream runOut = new PrintStream(log, true, StandardCharsets.UTF_8)) {
            try {
                code = TpccRunCommand.execute(request, runOut, runOut);
            } catch (RuntimeException e) {
                runOut.println("gargamel: error: " + e.getMessage());
                code = GargamelMain.EXIT_FAILED;
            }
        }
        Files.write(runDirectory.resolve("run.log"), log.toByteArray());
        copies.drop(urls);
        Path resultFile = runDirectory.resolve("result.json");
        if (!Files.exists(resultFile)) {
            err.println("FAILED");
            throw new CommandFailedException("run " + plan.label() + " failed (exit " + code + "); see "
                    + runDirectory.resolve("run.log"));
        }
        RunResult result = RunResult.read(resultFile);
        Map<String, Double> overall = result.latencyMs().get(RunResult.ALL_TYPES);
        @SuppressWarnings("unchecked")
        boolean consistent = result.consistency() instanceof Map<?, ?> map && Boolean.TRUE.equals(((Map<String, Object>) map).get("passed"));
        @SuppressWarnings("unchecked")
        boolean identical = result.convergence() instanceof Map<?, ?> map2
                && Boolean.TRUE.equals(((Map<String, Object>) map2).get("identical"));
        CompareRun run = CompareRun.of(result, overall, consistent, identical, directory.relativize(resultFile).toString());
        err.printf(Locale.ROOT, "tpmC %.0f, p99 %.2f ms, conflict aborts %d%s%n", run.tpmC(), overall.get("p99"),
                run.conflictAborts(), consistent && identical ? "" : "  (CHECK FAILED)");
        return run;
    }
}
