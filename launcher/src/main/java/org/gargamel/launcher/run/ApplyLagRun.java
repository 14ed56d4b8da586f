package org.gargamel.launcher.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.launcher.cluster.ClusterPlan;
import org.gargamel.launcher.cluster.ClusterStatistics;
import org.gargamel.launcher.cluster.LocalGargamelCluster;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;

/**
 * {@code gargamel apply-lag}: C5's adversarial workload (issue 17; docs/node.md, Parallel apply). Terminals insert
 * independent events, which Gargamel executes in parallel at every replica, and now and then update one hot row. Each
 * replica must apply every other replica's write-sets: with one applier connection it applies them one by one while
 * its workers execute several at once, so under load it falls ever further behind; with parallel appliers it keeps
 * up. Every second the run samples each replica's lag (events acknowledged to the clients that the replica does not
 * hold yet) and the scheduler's calls not yet applied everywhere. At the end it waits until every replica has applied
 * everything and checks that every acknowledged event and hit is on every replica, once, and that the replicas are
 * identical. Writes {@code lag.json} and {@code lag.html} (the lag against time).
 */
public final class ApplyLagRun {
    /** What the options asked for. */
    public record Request(
            int replicas,
            List<String> jdbcUrls,
            int appliers,
            int applyGroup,
            int workers,
            int terminals,
            Duration duration,
            int hotPercent,
            int rowsPerCall,
            long seed,
            Path out) {
        public Request {
            jdbcUrls = List.copyOf(jdbcUrls);
        }

        PostgresBackend backend() {
            return jdbcUrls.isEmpty() ? PostgresBackend.EMBEDDED : PostgresBackend.EXTERNAL;
        }
    }

    /**
     * One second's sample: calls committed so far (and the events and hits among them), the calls the scheduler has
     * dispatched that some replica has not applied yet ({@code backlog}, null if the scheduler did not answer), and, every
     * {@link #EVENT_COUNT_EVERY} samples (else null), per replica the events acknowledged to the clients that it does
     * not hold yet (rough: an origin holds its events before its client hears of them, so this may go below 0).
     */
    record Sample(
            double seconds,
            long calls,
            long events,
            long hits,
            double throughputTps,
            Long backlog,
            List<Long> eventLagByReplica) {}

    private static final String RESOURCES = "/org/gargamel/launcher/applylag/";
    private static final String PAYLOAD = "x".repeat(100);
    /** Every how many samples the replicas' events are counted. */
    private static final int EVENT_COUNT_EVERY = 15;
    /** However far behind a replica fell, it must catch up within this once the terminals stop. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

    private final Request request;
    private final PrintStream out;
    private final PrintStream err;

    private final AtomicLong events = new AtomicLong();
    private final AtomicLong eventCalls = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong overloaded = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    /** When the terminals were told to stop (System.nanoTime). */
    private long stoppedAt;

    public ApplyLagRun(Request request, PrintStream out, PrintStream err) {
        this.request = request;
        this.out = out;
        this.err = err;
    }

    public int execute() {
        try (PostgresCluster databases =
                TpccDatabases.start(request.backend(), request.replicas(), request.jdbcUrls(), err)) {
            List<String> urls = databases.jdbcUrls();
            install(urls);
            Path logs = request.out().resolve("logs");
            Files.createDirectories(logs);
            Path rules = logs.resolve("apply-lag-rules.yaml");
            Files.writeString(rules, resource("rules.yaml"), StandardCharsets.UTF_8);
            ClusterPlan plan = new ClusterPlan(
                            Mode.GARGAMEL,
                            Isolation.PSI,
                            rules,
                            urls,
                            request.workers(),
                            logs,
                            request.backend() == PostgresBackend.EXTERNAL,
                            1)
                    .withApply(request.appliers(), request.applyGroup());
            List<Sample> samples;
            double drainSeconds;
            ClusterStatistics nodes;
            LocalGargamelCluster cluster = LocalGargamelCluster.start(plan, err);
            try {
                err.printf(
                        "apply lag: %d replica(s), %d applier connection(s) per node (groups of up to %d), %d worker(s), "
                                + "%d terminal(s), "
                                + "%d%% hits on the hot row, %d event(s) per insert call, %s%n",
                        urls.size(),
                        request.appliers(),
                        request.applyGroup(),
                        request.workers(),
                        request.terminals(),
                        request.hotPercent(),
                        request.rowsPerCall(),
                        request.duration());
                samples = drive(cluster, urls);
                if (cluster.failure() != null) {
                    throw new CommandFailedException("the run stopped: " + cluster.failure());
                }
                err.println("terminals stopped; waiting until every replica has applied every write-set ...");
                try {
                    cluster.awaitQuiescence(DRAIN_TIMEOUT);
                } catch (IllegalStateException e) {
                    throw new CommandFailedException(
                            "the replicas did not catch up within " + DRAIN_TIMEOUT.toMinutes()
                                    + " min of the terminals stopping: " + e.getMessage(),
                            e);
                }
                drainSeconds = (System.nanoTime() - stoppedAt) / 1e9;
                nodes = cluster.stop();
            } finally {
                cluster.close();
            }
            return check(urls, samples, drainSeconds, nodes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.INTERRUPTED;
        } catch (IOException e) {
            throw new CommandFailedException(
                    "cannot start the cluster (logs under " + request.out() + "): " + e.getMessage(), e);
        }
    }

    /** The same tables and procedures in every database; each must be empty of them. */
    private static void install(List<String> urls) {
        String schema = resource("schema.sql");
        for (String url : urls) {
            try (Connection connection = JdbcConnections.connect(url);
                    Statement statement = connection.createStatement()) {
                try (ResultSet row = statement.executeQuery("SELECT to_regclass('public.event') IS NOT NULL")) {
                    row.next();
                    if (row.getBoolean(1)) {
                        throw new CommandFailedException(Secrets.maskUrl(url) + " holds a table event already: "
                                + "apply-lag needs databases of its own, empty");
                    }
                }
                statement.execute(schema);
            } catch (SQLException e) {
                throw new CommandFailedException(
                        "cannot install the workload at " + Secrets.maskUrl(url) + ": " + e.getMessage(), e);
            }
        }
    }

    /** Runs the terminals for the duration, sampling every second; returns the samples. */
    private List<Sample> drive(LocalGargamelCluster cluster, List<String> urls) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        cluster.onFailure(() -> stop.set(true));
        List<Thread> terminals = new ArrayList<>();
        for (int t = 1; t <= request.terminals(); t++) {
            int terminal = t;
            SplittableRandom random = new SplittableRandom(request.seed() * 1_000_003L + t);
            Thread thread = new Thread(() -> terminal(cluster, terminal, random, stop), "terminal-" + t);
            thread.setDaemon(true);
            terminals.add(thread);
        }
        List<Sample> samples = new ArrayList<>();
        List<Connection> readers = new ArrayList<>();
        try {
            for (String url : urls) {
                readers.add(JdbcConnections.connect(url));
            }
            for (Connection reader : readers) {
                reader.setAutoCommit(true);
            }
            long start = System.nanoTime();
            terminals.forEach(Thread::start);
            long end = start + request.duration().toNanos();
            long previousCalls = 0;
            double previousSeconds = 0;
            // Each sample starts a second after the one before, or at once if that one took longer; the run ends on
            // the clock, however long the samples take.
            int taken = 0;
            for (long next = start + 1_000_000_000L;
                    next <= end && !stop.get();
                    next = Math.max(next + 1_000_000_000L, System.nanoTime())) {
                long sleep = (next - System.nanoTime()) / 1_000_000;
                if (sleep > 0) {
                    Thread.sleep(sleep);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                long hitsNow = hits.get();
                long calls = eventCalls.get() + hitsNow;
                long acknowledged = events.get();
                List<Long> lag = null;
                if (taken++ % EVENT_COUNT_EVERY == 0) { // count(*) reads the whole table: not every second
                    lag = new ArrayList<>();
                    for (Connection reader : readers) {
                        lag.add(acknowledged - count(reader));
                    }
                }
                Long backlog = schedulerBacklog(cluster);
                double tps = (calls - previousCalls) / (seconds - previousSeconds);
                Sample sample = new Sample(seconds, calls, acknowledged, hitsNow, tps, backlog, lag);
                samples.add(sample);
                err.printf(
                        Locale.ROOT,
                        "\r  %5.0f s  %,9d calls committed  %6.0f tx/s  backlog %s (calls not yet applied "
                                + "everywhere)   ",
                        seconds,
                        calls,
                        tps,
                        backlog == null ? "?" : String.format("%,d", backlog));
                previousCalls = calls;
                previousSeconds = seconds;
            }
            err.println();
        } catch (SQLException e) {
            throw new CommandFailedException("cannot read a replica's events: " + e.getMessage(), e);
        } finally {
            stop.set(true);
            stoppedAt = System.nanoTime();
            for (Thread terminal : terminals) {
                terminal.join(60_000);
            }
            for (Connection reader : readers) {
                try {
                    reader.close();
                } catch (SQLException e) {
                    // closing anyway
                }
            }
        }
        return samples;
    }

    private void terminal(LocalGargamelCluster cluster, int terminal, SplittableRandom random, AtomicBoolean stop) {
        var session = cluster.client().openSession();
        long seq = 0;
        while (!stop.get()) {
            boolean hit = random.nextInt(100) < request.hotPercent();
            ProcedureCall call = hit
                    ? ProcedureCall.of("hit", 1)
                    : ProcedureCall.of("record_events", terminal, seq, request.rowsPerCall(), PAYLOAD);
            try {
                CallOutcome outcome = session.call(call);
                if (outcome.status() == CallOutcome.Status.COMMITTED) {
                    if (hit) {
                        hits.incrementAndGet();
                    } else {
                        events.addAndGet(request.rowsPerCall());
                        eventCalls.incrementAndGet();
                        seq++;
                    }
                } else if (outcome.status() == CallOutcome.Status.REJECTED
                        && outcome.message() != null
                        && outcome.message().startsWith("overloaded")) {
                    overloaded.incrementAndGet(); // the scheduler's maxInFlight: a replica is that far behind
                    Thread.sleep(10);
                } else {
                    error(call.procedure() + ": " + outcome.describe());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                error(call.procedure() + ": " + e);
            }
        }
    }

    private void error(String what) {
        errors.incrementAndGet();
        firstError.compareAndSet(null, what);
    }

    private static long count(Connection reader) throws SQLException {
        try (Statement statement = reader.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM event")) {
            row.next();
            return row.getLong(1);
        }
    }

    private static Long schedulerBacklog(LocalGargamelCluster cluster) throws InterruptedException {
        try {
            return cluster.client().inFlightAtScheduler();
        } catch (TimeoutException | RuntimeException e) {
            return null;
        }
    }

    private int check(List<String> urls, List<Sample> samples, double drainSeconds, ClusterStatistics nodes) {
        err.println("checking every replica against what the clients were told, and comparing the replicas ...");
        List<String> names = DatabaseNames.of(urls);
        List<String> failures = new ArrayList<>();
        List<Map<String, Object>> replicas = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            try (Connection connection = JdbcConnections.connect(urls.get(i));
                    Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery(
                            "SELECT (SELECT count(*) FROM event),"
                                    + " (SELECT count(DISTINCT (terminal, seq, part)) FROM event), (SELECT hits FROM hot WHERE id = 1)")) {
                row.next();
                long held = row.getLong(1);
                long distinct = row.getLong(2);
                long hitCount = row.getLong(3);
                Map<String, Object> replica = new LinkedHashMap<>();
                replica.put("database", names.get(i));
                replica.put("events", held);
                replica.put("distinctEvents", distinct);
                replica.put("hits", hitCount);
                replicas.add(replica);
                if (held != events.get() || distinct != held) {
                    failures.add(names.get(i) + " holds " + held + " events (" + distinct + " distinct) where "
                            + events.get() + " were acknowledged");
                }
                if (hitCount != hits.get()) {
                    failures.add(
                            names.get(i) + " counts " + hitCount + " hits where " + hits.get() + " were acknowledged");
                }
            } catch (SQLException e) {
                throw new CommandFailedException("cannot read " + names.get(i) + ": " + e.getMessage(), e);
            }
        }
        ConvergenceReport convergence = TableChecksums.ofCatalogue().compare(urls);
        if (!convergence.identical()) {
            failures.add("the replicas differ in " + convergence.differingTables());
        }
        if (errors.get() > 0) {
            failures.add(errors.get() + " call(s) failed, first: " + firstError.get());
        }
        LagReport report = new LagReport(request, samples, names);
        out.print(report.summary(events.get(), hits.get(), overloaded.get(), drainSeconds));
        out.print(nodes.render());
        out.printf(
                "replicas: every acknowledged event and hit on every replica, once: %s; convergence: %s%n",
                failures.stream().noneMatch(failure -> failure.contains("acknowledged")) ? "yes" : "NO",
                convergence.identical() ? "identical (" + convergence.tables().size() + " tables)" : "DIFFERING");
        Map<String, Object> result = report.json();
        result.put("committedEvents", events.get());
        result.put("committedHits", hits.get());
        result.put("rejectedOverloaded", overloaded.get());
        result.put("errors", errors.get());
        result.put("firstError", firstError.get());
        result.put("drainSeconds", drainSeconds);
        result.put("replicaContents", replicas);
        result.put("convergence", convergence);
        result.put("passed", failures.isEmpty());
        try {
            Files.createDirectories(request.out());
            new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValue(request.out().resolve("lag.json").toFile(), result);
            Files.writeString(request.out().resolve("lag.html"), report.html(), StandardCharsets.UTF_8);
            Files.writeString(request.out().resolve("lag.svg"), report.chart(), StandardCharsets.UTF_8);
            nodes.write(request.out().resolve("nodes.json"));
        } catch (IOException e) {
            throw new CommandFailedException(
                    "cannot write the results under " + request.out() + ": " + e.getMessage(), e);
        }
        out.println("result: " + request.out().resolve("lag.json") + " (chart: lag.html, lag.svg)");
        failures.forEach(failure -> err.println("gargamel: error: " + failure));
        return failures.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    static String resource(String name) {
        try (InputStream in = ApplyLagRun.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the launcher is missing its resource " + RESOURCES + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + RESOURCES + name + ": " + e.getMessage(), e);
        }
    }
}
