package org.gargamel.launcher.run;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.provisioning.PostgresBackend;
import org.gargamel.provisioning.PostgresCluster;
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
        return start(request.backend(), request.replicas(), request.jdbcUrls(), err);
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

    /** The load's progress bar on {@code stream} (redrawn in place on a terminal). */
    public static LoadProgress progress(PrintStream stream) {
        return new LoadProgress(stream, LoadProgress.onTerminal(), System::nanoTime);
    }

    /**
     * Makes every replica hold the same TPC-C database: loads them all when all are empty; accepts them when
     * all hold a load of the requested scale and are identical table by table; refuses anything else, naming
     * the database and what it holds, before anything is written.
     */
    static LoadInfo prepareReplicas(List<String> urls, RunRequest request, PrintStream err) {
        return prepareReplicas(urls, request.warehouses(), request.loadSeed(), request.freshCopies(), err);
    }

    /**
     * {@link #prepareReplicas(List, RunRequest, PrintStream)} for {@code warehouses} loaded with {@code loadSeed};
     * {@code freshCopies}: copies of one template made for this run, not compared again.
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
            return new TpccLoader(new LoadOptions(warehouses, loadSeed, LoadOptions.defaultThreads()), progress(err))
                    .load(urls);
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
            return new TpccLoader(new LoadOptions(warehouses, loadSeed, LoadOptions.defaultThreads()), progress(err))
                    .load(url);
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
