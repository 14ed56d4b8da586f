package org.gargamel.launcher.costs;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.launcher.run.TpccRun;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.result.RunResult;

/**
 * The bench's native figures: PostgreSQL's own logical replication of the kit's TPC-C on this machine. Starts two
 * embedded servers loaded identically (the same loader and seed as the Gargamel runs), a publisher with {@code
 * wal_level=logical} and a subscriber with the embedded servers' usual settings, subscribes one to the other
 * ({@link LogicalReplication}), runs {@code request} (the kit's TPC-C in direct mode, the Gargamel runs' terminals,
 * warm-up and duration) against the publisher while {@link NativeCpuWindow} measures, and finally checks that the
 * subscriber's TPC-C tables equal the publisher's.
 */
final class NativeRun {
    /** What a publisher needs beyond an embedded server's settings; only a start sets it. */
    static final Map<String, String> PUBLISHER_SETTINGS = Map.of("wal_level", "logical");

    private static final Duration STREAMING_TIMEOUT = Duration.ofMinutes(1);

    private final RunRequest request;
    private final PrintStream err;

    /** {@code request}: a direct run on one embedded server; it runs on the publisher instead. */
    NativeRun(RunRequest request, PrintStream err) {
        if (!(request.target() instanceof RunTarget.Direct)) {
            throw new IllegalArgumentException("the native run runs the procedures directly, not " + request.target());
        }
        this.request = request;
        this.err = err;
    }

    /**
     * Runs it and returns its figures, {@link NativeCosts#converged()} saying whether the subscriber ended equal to
     * the publisher. Fails if the run itself fails.
     */
    NativeCosts run() throws IOException, SQLException, InterruptedException {
        err.println(
                "native: a publisher (wal_level=logical) and a subscriber, each loaded with the same TPC-C data ...");
        // Closed in reverse: the subscriber stops before the publisher it streams from.
        try (PostgresCluster publisher = TpccDatabases.startEmbeddedLoaded(
                        1, request.warehouses(), request.loadSeed(), PUBLISHER_SETTINGS, err);
                PostgresCluster subscriber =
                        TpccDatabases.startEmbeddedLoaded(1, request.warehouses(), request.loadSeed(), Map.of(), err)) {
            String publisherUrl = publisher.jdbcUrl(0);
            String subscriberUrl = subscriber.jdbcUrl(0);
            String version = serverVersion(publisherUrl);
            try (LogicalReplication replication =
                    LogicalReplication.subscribe(publisherUrl, subscriberUrl, STREAMING_TIMEOUT)) {
                err.println("native: the subscriber applies what the publisher commits (publication and subscription "
                        + LogicalReplication.NAME + ")");
                NativeCpuWindow window = new NativeCpuWindow(
                        replication,
                        publisher.postmasterPids().get(0),
                        subscriber.postmasterPids().get(0),
                        version,
                        err);
                CostsBench.requireSucceeded(
                        new TpccRun(request.onServers(List.of(publisherUrl)), err, err)
                                .observedBy(window)
                                .execute(),
                        "the native run (direct on the publisher)",
                        request.out());
                NativeCosts costs = window.costs();
                if (costs == null) {
                    throw new CommandFailedException(
                            "the native run ended without a measurement interval; see " + request.out());
                }
                Path resultFile = request.out().resolve("result.json");
                RunResult result = RunResult.read(resultFile);
                err.println("native: comparing the subscriber with the publisher table by table ...");
                CheckReport check = new CheckRunner().run(List.of(publisherUrl, subscriberUrl));
                err.print(check.render());
                return costs.withRun(result.tpmC(), resultFile.toString())
                        .withConverged(check.convergence().identical());
            }
        }
    }

    private static String serverVersion(String url) throws SQLException {
        try (Connection connection = JdbcConnections.connect(url);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SHOW server_version")) {
            row.next();
            return row.getString(1);
        }
    }
}
