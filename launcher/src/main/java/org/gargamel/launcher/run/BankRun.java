package org.gargamel.launcher.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gargamel.bank.check.BankInvariants;
import org.gargamel.bank.check.DatabaseInvariants;
import org.gargamel.bank.check.Expectation;
import org.gargamel.bank.check.Invariant;
import org.gargamel.bank.schema.BankSchema;
import org.gargamel.bank.workload.BankProcedure;
import org.gargamel.bank.workload.BankWorkload;
import org.gargamel.bank.workload.RunRecord;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.cluster.ClusterPlan;
import org.gargamel.launcher.cluster.ClusterStatistics;
import org.gargamel.launcher.cluster.LocalGargamelCluster;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;

/**
 * One bank run (gargamel bank run): start or check the servers, load the bank or accept identical loads, start the
 * scheduler and a node per replica with the bank's rules, drive the terminals, wait until every replica applied
 * everything, check the bank's invariants on every replica against what the clients were told, compare the replicas
 * table by table, print the summary and write {@code result.json}. Exit 0 when every check passes and no call failed
 * or read a torn state, 1 otherwise, 130 when interrupted.
 */
public final class BankRun {
    private static final Duration QUIESCENCE_TIMEOUT = Duration.ofMinutes(2);

    private final BankRunRequest request;
    private final PrintStream out;
    private final PrintStream err;

    public BankRun(BankRunRequest request, PrintStream out, PrintStream err) {
        this.request = request;
        this.out = out;
        this.err = err;
    }

    public int execute() {
        try (PostgresCluster databases =
                TpccDatabases.start(request.backend(), request.replicas(), request.jdbcUrls(), err)) {
            List<String> urls = databases.jdbcUrls();
            BankDatabases.Scale scale =
                    BankDatabases.prepareReplicas(urls, request.branches(), request.accountsPerBranch(), err);
            Expectation.Baseline baseline = baseline(urls.get(0));
            Path logs = request.out().resolve("logs");
            ClusterPlan plan = new ClusterPlan(
                    request.mode(),
                    request.isolation(),
                    BankSchema.writeRules(logs),
                    urls,
                    request.workers(),
                    logs,
                    request.backend() == PostgresBackend.EXTERNAL,
                    1);
            AtomicBoolean interrupted = new AtomicBoolean();
            RunRecord record;
            double seconds;
            ClusterStatistics nodes;
            LocalGargamelCluster cluster = LocalGargamelCluster.start(plan, err);
            try {
                BankWorkload workload = new BankWorkload(
                        request.workload(scale.branches(), scale.accounts()),
                        terminal -> cluster.client().openSession()::call);
                cluster.onFailure(workload::stop);
                Thread hook = new Thread(
                        () -> {
                            interrupted.set(true);
                            workload.stop();
                            cluster.close();
                        },
                        "bank-run-interrupt");
                Runtime.getRuntime().addShutdownHook(hook);
                try {
                    err.printf(
                            "running the bank through Gargamel (%s, %s): %d replica(s), %d branch(es), %,d accounts, "
                                    + "%d terminal(s), %s%n",
                            request.mode().configName(),
                            request.isolation().configName(),
                            urls.size(),
                            scale.branches(),
                            scale.accounts(),
                            request.terminals(),
                            request.duration());
                    record = workload.run();
                    seconds = workload.measuredSeconds();
                    if (cluster.failure() != null) {
                        throw new CommandFailedException("the run stopped: " + cluster.failure());
                    }
                    if (!interrupted.get()) {
                        err.println("waiting until every replica has applied every write-set ...");
                        cluster.awaitQuiescence(QUIESCENCE_TIMEOUT);
                    }
                    nodes = cluster.stop();
                } finally {
                    removeHook(hook);
                }
            } finally {
                cluster.close(); // idempotent; stop() closed it already unless the run failed
            }
            out.print(summary(record, seconds));
            out.print(nodes.render());
            return interrupted.get()
                    ? TpccRun.reportInterrupted(err)
                    : check(urls, record, seconds, Expectation.after(baseline, record), nodes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.INTERRUPTED;
        } catch (IOException e) {
            throw new CommandFailedException(
                    "cannot start the cluster (logs under " + request.out() + "): " + e.getMessage(), e);
        }
    }

    private int check(
            List<String> urls, RunRecord record, double seconds, Expectation expected, ClusterStatistics nodes) {
        err.println("checking the bank's invariants on every replica and comparing the replicas ...");
        List<DatabaseInvariants> invariants = checkInvariants(urls, expected);
        ConvergenceReport convergence = TableChecksums.ofCatalogue().compare(urls);
        boolean invariantsHold = invariants.stream().allMatch(DatabaseInvariants::passed);
        out.print(renderChecks(invariants, convergence));
        Path resultFile = request.out().resolve("result.json");
        try {
            writeResult(resultFile, record, seconds, invariants, convergence);
            nodes.write(request.out().resolve("nodes.json"));
        } catch (IOException e) {
            throw new CommandFailedException(
                    "cannot write the results under " + request.out() + ": " + e.getMessage(), e);
        }
        out.println("result: " + resultFile);
        List<String> failures = new ArrayList<>();
        if (!invariantsHold) {
            failures.add("the bank's invariants fail on some replica (the lines marked VIOLATED above)");
        }
        if (!convergence.identical()) {
            failures.add("the replicas differ in " + convergence.differingTables());
        }
        if (record.tornReads() > 0) {
            failures.add(record.tornReads() + " torn read(s), first: " + record.firstTornRead());
        }
        if (record.readYourWritesMisses() > 0) {
            failures.add(record.readYourWritesMisses() + " read-your-writes miss(es), first: "
                    + record.firstReadYourWritesMiss());
        }
        if (record.errors() > 0) {
            failures.add(record.errors() + " call(s) failed unexpectedly, first: " + record.firstError());
        }
        failures.forEach(failure -> err.println("gargamel: error: " + failure));
        return failures.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    /** The invariants of every database, each against {@code expected} (null: those the data alone decides). */
    public static List<DatabaseInvariants> checkInvariants(List<String> urls, Expectation expected) {
        List<String> names = DatabaseNames.of(urls);
        List<DatabaseInvariants> reports = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            try (Connection connection = JdbcConnections.connect(urls.get(i))) {
                reports.add(BankInvariants.check(connection, names.get(i), expected));
            } catch (SQLException e) {
                throw new CommandFailedException("cannot connect to " + names.get(i) + ": " + e.getMessage(), e);
            }
        }
        return reports;
    }

    /** The invariants of every database, then the comparison of the replicas. */
    public static String renderChecks(List<DatabaseInvariants> invariants, ConvergenceReport convergence) {
        StringBuilder text = new StringBuilder();
        boolean passed = invariants.stream().allMatch(DatabaseInvariants::passed);
        text.append(String.format(
                "bank invariants on %d database(s): %s%n", invariants.size(), passed ? "PASSED" : "FAILED"));
        invariants.forEach(database -> text.append(database.render()));
        text.append(String.format(
                "convergence of %d database(s): %s%n",
                convergence.databases().size(),
                convergence.identical()
                        ? "identical (" + convergence.tables().size() + " tables)"
                        : "DIFFERING in " + convergence.differingTables()));
        if (!convergence.identical()) {
            convergence.tables().stream()
                    .filter(table -> !table.identical())
                    .forEach(table -> table.checksums()
                            .forEach(database -> text.append(String.format(
                                    "  %-10s %-50s %,d rows %s%n",
                                    table.table(), database.database(), database.rows(), database.checksum()))));
        }
        return text.toString();
    }

    private String summary(RunRecord record, double seconds) {
        StringBuilder text = new StringBuilder();
        long committed = record.committed();
        text.append(String.format(
                Locale.ROOT,
                "bank: %,d calls committed in %.1f s: %.1f tx/s (%d terminals, %d replica(s), %s, %s)%n",
                committed,
                seconds,
                committed / seconds,
                request.terminals(),
                request.replicas(),
                request.mode().configName(),
                request.isolation().configName()));
        text.append(String.format(
                "%-18s %10s %12s %9s %9s%n", "procedure", "committed", "user aborts", "p50 ms", "p99 ms"));
        for (BankProcedure procedure : BankProcedure.values()) {
            Map<String, Double> latency = record.latencyMillis(procedure);
            text.append(String.format(
                    Locale.ROOT,
                    "%-18s %,10d %,12d %9.2f %9.2f%n",
                    procedure.sqlName(),
                    record.committed(procedure),
                    record.userAborts(procedure),
                    latency.get("p50"),
                    latency.get("p99")));
        }
        text.append(String.format(
                "user aborts %,d (insufficient funds)   errors %,d   torn reads %,d   read-your-writes misses %,d%n",
                record.userAborts(), record.errors(), record.tornReads(), record.readYourWritesMisses()));
        if (record.readYourWritesMisses() > 0) {
            text.append("  read-your-writes misses: a call on an account the terminal had just opened found no such "
                            + "account at the replica that ran it (its session should have prevented it); first: ")
                    .append(record.firstReadYourWritesMiss())
                    .append('\n');
        }
        if (record.errors() > 0) {
            text.append("  first error: ").append(record.firstError()).append('\n');
        }
        if (record.tornReads() > 0) {
            text.append("  first torn read: ").append(record.firstTornRead()).append('\n');
        }
        return text.toString();
    }

    private void writeResult(
            Path file,
            RunRecord record,
            double seconds,
            List<DatabaseInvariants> invariants,
            ConvergenceReport convergence)
            throws IOException {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("application", "bank");
        result.put("mode", request.mode().configName());
        result.put("isolation", request.isolation().configName());
        result.put("replicas", request.replicas());
        result.put("terminals", request.terminals());
        result.put("durationSeconds", seconds);
        result.put("throughputTps", record.committed() / seconds);
        Map<String, Object> committed = new LinkedHashMap<>();
        Map<String, Object> userAborts = new LinkedHashMap<>();
        Map<String, Object> latency = new LinkedHashMap<>();
        for (BankProcedure procedure : BankProcedure.values()) {
            committed.put(procedure.sqlName(), record.committed(procedure));
            userAborts.put(procedure.sqlName(), record.userAborts(procedure));
            latency.put(procedure.sqlName(), record.latencyMillis(procedure));
        }
        result.put("committed", committed);
        result.put("userAborts", record.userAborts());
        result.put("userAbortsByProcedure", userAborts);
        result.put("errors", record.errors());
        result.put("firstError", record.firstError());
        result.put("tornReads", record.tornReads());
        result.put("firstTornRead", record.firstTornRead());
        result.put("readYourWritesMisses", record.readYourWritesMisses());
        result.put("firstReadYourWritesMiss", record.firstReadYourWritesMiss());
        result.put("latencyMs", latency);
        result.put("acknowledgedAccounts", record.accounts().size());
        result.put("acknowledgedTransfers", record.transfers().size());
        List<Object> databases = new ArrayList<>();
        for (DatabaseInvariants database : invariants) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("database", database.database());
            entry.put("passed", database.passed());
            List<Object> checked = new ArrayList<>();
            for (Invariant invariant : database.invariants()) {
                checked.add(
                        Map.of("name", invariant.name(), "passed", invariant.passed(), "detail", invariant.detail()));
            }
            entry.put("invariants", checked);
            databases.add(entry);
        }
        result.put(
                "invariants",
                Map.of("passed", invariants.stream().allMatch(DatabaseInvariants::passed), "databases", databases));
        result.put("convergence", convergence);
        Files.createDirectories(file.getParent());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), result);
    }

    private static Expectation.Baseline baseline(String url) {
        try (Connection connection = JdbcConnections.connect(url)) {
            return BankInvariants.baseline(connection);
        } catch (SQLException e) {
            throw new CommandFailedException(
                    "cannot read the bank's totals before the run at " + Secrets.maskUrl(url) + ": " + e.getMessage(),
                    e);
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
