package org.gargamel.launcher.run;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.provisioning.PostgresSnapshots;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.schema.DatabaseState;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.schema.TpccSchema;

/**
 * The PostgreSQL side of the TPC-C commands: starting the servers of a run, finding out what a database holds, and
 * making every replica hold the same TPC-C database before a run. Messages name each database by its URL with the
 * password masked.
 */
public final class TpccDatabases {
    static final String TESTCONTAINERS_IMAGE = "postgres:18-alpine";

    private TpccDatabases() {}

    /** The servers of a run: the ones given, or {@code request.replicas()} started by its backend. */
    static PostgresCluster start(RunRequest request, PrintStream err) {
        return start(request, null, err);
    }

    /**
     * As above, embedded servers reachable from {@code clientNetwork} too (a CIDR, or null: this host only), for nodes
     * in network namespaces ({@link PostgresCluster#embedded(int, String)}).
     */
    static PostgresCluster start(RunRequest request, String clientNetwork, PrintStream err) {
        Optional<PostgresSnapshots> snapshots = PostgresSnapshots.fromEnvironment();
        if (request.backend() == PostgresBackend.EMBEDDED && snapshots.isPresent()) {
            return startLoaded(
                    snapshots.get(),
                    request.replicas(),
                    clientNetwork,
                    request.warehouses(),
                    request.loadSeed(),
                    Map.of(),
                    err);
        }
        if (clientNetwork != null) {
            if (request.backend() != PostgresBackend.EMBEDDED) {
                throw new IllegalArgumentException("only embedded servers are started for a network of namespaces");
            }
            err.println("starting " + request.replicas() + " embedded PostgreSQL server(s), reachable from "
                    + clientNetwork + " ...");
            return PostgresCluster.embedded(request.replicas(), clientNetwork);
        }
        return start(request.backend(), request.replicas(), request.jdbcUrls(), err);
    }

    /**
     * {@code count} embedded servers holding the same TPC-C load of {@code warehouses} and {@code loadSeed}: copies of
     * a snapshot where {@link PostgresSnapshots} is configured (the build), else loaded now (the tests' clusters).
     */
    public static PostgresCluster startEmbeddedLoaded(int count, int warehouses, long loadSeed, PrintStream err) {
        return startEmbeddedLoaded(count, null, warehouses, loadSeed, err);
    }

    /** As above, the servers reachable from {@code clientNetwork} too ({@link PostgresCluster#embedded(int, String)}). */
    public static PostgresCluster startEmbeddedLoaded(
            int count, String clientNetwork, int warehouses, long loadSeed, PrintStream err) {
        Optional<PostgresSnapshots> snapshots = PostgresSnapshots.fromEnvironment();
        if (snapshots.isPresent()) {
            return startLoaded(snapshots.get(), count, clientNetwork, warehouses, loadSeed, Map.of(), err);
        }
        return loadedNow(PostgresCluster.embedded(count, clientNetwork), warehouses, loadSeed, err);
    }

    /**
     * As {@link #startEmbeddedLoaded(int, int, long, PrintStream)}, each server started with {@code extraSettings}
     * ({@link PostgresCluster#embeddedWith(int, Map)}: {@code wal_level=logical} for a publisher, say).
     */
    public static PostgresCluster startEmbeddedLoaded(
            int count, int warehouses, long loadSeed, Map<String, String> extraSettings, PrintStream err) {
        Optional<PostgresSnapshots> snapshots = PostgresSnapshots.fromEnvironment();
        if (snapshots.isPresent()) {
            return startLoaded(snapshots.get(), count, null, warehouses, loadSeed, extraSettings, err);
        }
        err.println("starting "
                + (count == 1 ? "an embedded PostgreSQL server" : count + " embedded PostgreSQL servers") + " ...");
        return loadedNow(PostgresCluster.embeddedWith(count, extraSettings), warehouses, loadSeed, err);
    }

    /** {@code cluster} loaded now with {@code warehouses} and {@code loadSeed}; closed if the load fails. */
    private static PostgresCluster loadedNow(PostgresCluster cluster, int warehouses, long loadSeed, PrintStream err) {
        try {
            loader(warehouses, loadSeed, err).load(cluster.jdbcUrls());
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * {@code count} embedded servers holding the TPC-C load of {@code warehouses} and {@code loadSeed}, copied from a
     * snapshot of {@link PostgresSnapshots} (loaded now if there is none yet): the build's tests, which start dozens
     * of clusters of the same load.
     */
    private static PostgresCluster startLoaded(
            PostgresSnapshots snapshots,
            int count,
            String clientNetwork,
            int warehouses,
            long loadSeed,
            Map<String, String> extraSettings,
            PrintStream err) {
        String key = "tpcc-w" + warehouses + "-seed" + loadSeed + "-" + CodeFingerprint.of(TpccLoader.class);
        Path snapshot =
                snapshots.snapshot(key, url -> loader(warehouses, loadSeed, err).load(url));
        err.println("starting " + count + " embedded PostgreSQL server(s), each a copy of the TPC-C snapshot "
                + snapshot.getFileName() + " (" + PostgresSnapshots.DIRECTORY_VARIABLE + ") ...");
        return PostgresCluster.embeddedCopies(count, clientNetwork, snapshot, extraSettings);
    }

    /** The servers of a run of any kit: {@code jdbcUrls} (EXTERNAL), or {@code count} started by {@code backend}. */
    public static PostgresCluster start(PostgresBackend backend, int count, List<String> jdbcUrls, PrintStream err) {
        return switch (backend) {
            case EXTERNAL -> PostgresCluster.external(jdbcUrls);
            case EMBEDDED -> {
                err.println("starting "
                        + (count == 1 ? "an embedded PostgreSQL server" : count + " embedded PostgreSQL servers")
                        + " ...");
                yield PostgresCluster.embedded(count);
            }
            case TESTCONTAINERS -> {
                err.println("starting " + count + " PostgreSQL container(s) with Testcontainers ...");
                yield PostgresCluster.testcontainers(count, TESTCONTAINERS_IMAGE);
            }
        };
    }

    /** What the database at {@code url} holds: nothing, a TPC-C load, or something else. */
    public static DatabaseState inspect(String url) {
        try (Connection connection = JdbcConnections.connect(url)) {
            return TpccSchema.inspect(connection);
        } catch (SQLException e) {
            throw new CommandFailedException("cannot inspect " + Secrets.maskUrl(url) + ": " + e.getMessage(), e);
        }
    }

    /** A loader of {@code warehouses} with {@code loadSeed}, its progress bar on {@code err}. */
    private static TpccLoader loader(int warehouses, long loadSeed, PrintStream err) {
        return new TpccLoader(new LoadOptions(warehouses, loadSeed, LoadOptions.defaultThreads()), progress(err));
    }

    /** The load's progress bar on {@code stream} (redrawn in place on a terminal). */
    public static LoadProgress progress(PrintStream stream) {
        return new LoadProgress(stream, LoadProgress.onTerminal(), System::nanoTime);
    }

    /**
     * Makes every replica hold the same TPC-C database of {@code warehouses} loaded with {@code loadSeed}: loads them
     * all when all are empty; accepts them when all hold a load of that scale and are identical table by table; refuses
     * anything else, naming the database and what it holds, before anything is written. {@code freshCopies}: copies of
     * one template or snapshot made for this run, not compared again.
     */
    public static LoadInfo prepareReplicas(
            List<String> urls, int warehouses, long loadSeed, boolean freshCopies, PrintStream err) {
        if (urls.size() == 1) {
            return prepare(urls.get(0), warehouses, loadSeed, err);
        }
        List<DatabaseState> states = urls.stream().map(TpccDatabases::inspect).toList();
        for (int i = 0; i < urls.size(); i++) {
            if (!states.get(i).isEmpty() && !states.get(i).isLoaded()) {
                throw new CommandFailedException("refusing to run on " + Secrets.maskUrl(urls.get(i)) + ": "
                        + states.get(i).description());
            }
        }
        if (states.stream().allMatch(DatabaseState::isEmpty)) {
            return loader(warehouses, loadSeed, err).load(urls);
        }
        for (int i = 0; i < urls.size(); i++) {
            if (states.get(i).isEmpty()) {
                throw new CommandFailedException(
                        "refusing to run: " + Secrets.maskUrl(urls.get(i)) + " is empty but other "
                                + "replicas hold TPC-C data; give replicas that are all empty (they are loaded) or all loaded "
                                + "identically");
            }
        }
        LoadInfo load = null;
        for (String url : urls) {
            load = prepare(url, warehouses, loadSeed, err);
        }
        if (freshCopies) {
            return load; // copies of one template database, made for this run (compare): identical by construction
        }
        err.println("comparing the replicas before the run ...");
        CheckReport before = new CheckRunner().run(urls);
        if (!before.convergence().identical()) {
            throw new CommandFailedException(
                    "refusing to run: the replicas differ before the run:\n" + before.render());
        }
        return load;
    }

    /** Loads an empty database; accepts a loaded one of the same scale; refuses anything else. */
    static LoadInfo prepare(String url, RunRequest request, PrintStream err) {
        return prepare(url, request.warehouses(), request.loadSeed(), err);
    }

    private static LoadInfo prepare(String url, int warehouses, long loadSeed, PrintStream err) {
        String masked = Secrets.maskUrl(url);
        DatabaseState state = inspect(url);
        if (state.isEmpty()) {
            return loader(warehouses, loadSeed, err).load(url);
        }
        if (!state.isLoaded()) {
            throw new CommandFailedException("refusing to run on " + masked + ": " + state.description());
        }
        try (Connection connection = JdbcConnections.connect(url)) {
            LoadInfo load = TpccSchema.readLoadInfo(connection);
            if (load.warehouses() != warehouses) {
                throw new IllegalArgumentException("the database at " + masked + " holds " + load.warehouses()
                        + " warehouse(s) but --warehouses is " + warehouses);
            }
            err.printf(
                    "using the TPC-C database at %s (%d warehouse(s), loaded with seed %d)%n",
                    masked, load.warehouses(), load.seed());
            return load;
        } catch (SQLException e) {
            throw new CommandFailedException("cannot read tpcc_load_info at " + masked + ": " + e.getMessage(), e);
        }
    }
}
