package org.gargamel.frontend;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.ClientSession;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.wire.CallOutcome;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What the front end adds to one call (issue 15: at most 100 µs at the median): the same procedure called one at a
 * time on one cluster ({@link ShopCluster}: one embedded replica, the real scheduler and node, the front end), once
 * through a library session and once through pgjdbc and the front end (a kept {@code PreparedStatement}, so
 * server-prepared and binary from its fifth execution, as the TPC-C terminals use it). Both paths make the same
 * JGroups hops (the front end's own client replaces the library's), so the difference of the medians is the front
 * end's share: pgjdbc's client side, a loopback TCP round trip, parsing and binding, the hand-offs between the event
 * loop and the client's threads, and encoding the rows. {@code read}: a read-only call (one row of three columns);
 * {@code deposit}: an update (one row changed, its write-set committed in the log, the new balance returned).
 *
 * <p>Run: {@code scripts/gargamel bench frontend} (prints JMH's output, then {@code call=... library_p50_us=...
 * pgwire_p50_us=... added_p50_us=...} per call and the front end's CPU per call).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(
        value = 1,
        jvmArgs = {"-Xms1g", "-Xmx1g"})
public class FrontendLatencyBenchmark {
    /** The cluster, a library session and a pgjdbc connection through the front end. */
    @State(Scope.Benchmark)
    public static class Cluster {
        private Path directory;
        private ShopCluster cluster;
        private GargamelClient library;
        private ClientSession session;
        private Connection pgwire;
        private PreparedStatement read;
        private PreparedStatement deposit;
        private long frontendCpuStart;
        private long pgwireCallsStart;

        @Setup(Level.Trial)
        public void setUp() throws Exception {
            directory = Files.createTempDirectory("gargamel-frontend-bench");
            cluster = new ShopCluster(1, directory);
            library = GargamelClient.connect(GroupConfig.inMemory(), ClientOptions.defaults());
            library.awaitNodes(1, Duration.ofSeconds(60));
            session = library.openSession();
            pgwire = cluster.connect();
            read = pgwire.prepareStatement("SELECT * FROM statement(?)");
            deposit = pgwire.prepareStatement("SELECT deposit(?, ?)");
        }

        @Setup(Level.Iteration)
        public void markCpu() {
            frontendCpuStart = cluster.frontend.cpuNanos();
            pgwireCallsStart = cluster.frontend.calls();
        }

        @TearDown(Level.Iteration)
        public void reportCpu() {
            long calls = cluster.frontend.calls() - pgwireCallsStart;
            if (calls > 0) {
                System.out.printf(
                        "%nfrontend_cpu_us_per_call=%.1f (%d calls through the front end in this iteration)%n",
                        (cluster.frontend.cpuNanos() - frontendCpuStart) / 1e3 / calls, calls);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            pgwire.close();
            library.close();
            cluster.close();
            try (var paths = Files.walk(directory)) {
                paths.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    private static final BigDecimal ONE = BigDecimal.ONE;

    @Benchmark
    public CallOutcome libraryRead(Cluster state) throws InterruptedException {
        return expectCommitted(state.session.call(ProcedureCall.of("statement", 7)));
    }

    @Benchmark
    public String pgwireRead(Cluster state) throws SQLException {
        state.read.setInt(1, 7);
        try (ResultSet rows = state.read.executeQuery()) {
            if (!rows.next()) {
                throw new IllegalStateException("statement(7) returned no row through the front end");
            }
            return rows.getString(2);
        }
    }

    @Benchmark
    public CallOutcome libraryDeposit(Cluster state) throws InterruptedException {
        return expectCommitted(state.session.call(ProcedureCall.of("deposit", 3, ONE)));
    }

    @Benchmark
    public BigDecimal pgwireDeposit(Cluster state) throws SQLException {
        state.deposit.setInt(1, 4);
        state.deposit.setBigDecimal(2, ONE);
        try (ResultSet rows = state.deposit.executeQuery()) {
            rows.next();
            return rows.getBigDecimal(1);
        }
    }

    private static CallOutcome expectCommitted(CallOutcome outcome) {
        if (outcome.status() != CallOutcome.Status.COMMITTED) {
            throw new IllegalStateException("the library call did not commit: " + outcome);
        }
        return outcome;
    }

    /** Runs JMH (its command-line options are accepted) and prints the medians side by side. */
    public static void main(String[] args) throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                        .parent(new CommandLineOptions(args))
                        .include(FrontendLatencyBenchmark.class.getName() + ".*")
                        .build())
                .run();
        Map<String, double[]> byBenchmark = new LinkedHashMap<>();
        for (RunResult result : results) {
            String name = result.getParams().getBenchmark();
            var statistics = result.getPrimaryResult().getStatistics();
            byBenchmark.put(
                    name.substring(name.lastIndexOf('.') + 1),
                    new double[] {statistics.getPercentile(50), statistics.getPercentile(99)});
        }
        List<String> calls = new ArrayList<>(List.of("Read", "Deposit"));
        for (String call : calls) {
            double[] library = byBenchmark.get("library" + call);
            double[] pgwire = byBenchmark.get("pgwire" + call);
            if (library == null || pgwire == null) {
                continue;
            }
            System.out.printf(
                    "call=%s library_p50_us=%.1f pgwire_p50_us=%.1f added_p50_us=%.1f library_p99_us=%.1f"
                            + " pgwire_p99_us=%.1f%n",
                    call.toLowerCase(java.util.Locale.ROOT),
                    library[0],
                    pgwire[0],
                    pgwire[0] - library[0],
                    library[1],
                    pgwire[1]);
        }
    }
}
