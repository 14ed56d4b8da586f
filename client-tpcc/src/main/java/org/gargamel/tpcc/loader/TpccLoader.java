package org.gargamel.tpcc.loader;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.schema.DatabaseState;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.schema.TpccSchema;

/**
 * Loads the initial TPC-C population (clause 4.3.3.1) into one or more empty databases: every database
 * gets the same data, determined by the seed alone.
 *
 * <p>Steps per database: refuse unless {@link TpccSchema#inspect} says EMPTY; create the tables and
 * procedures; stream the rows with COPY, several tables at once on a bounded pool of named threads (each
 * task with its own connection and random stream, so thread timing cannot change the data); create the
 * secondary indexes; ANALYZE; and last write {@code tpcc_load_info}, which marks the database LOADED.
 */
public final class TpccLoader {
    /** The timestamp every loaded row carries, also written as tpcc_load_info.loaded_at. */
    public static final LocalDateTime LOAD_TIMESTAMP = InitialPopulation.LOAD_TIMESTAMP;

    private final LoadOptions options;
    private final LoadProgress progress;

    public TpccLoader(LoadOptions options, LoadProgress progress) {
        this.options = options;
        this.progress = progress;
    }

    /** The NURand constants of a load with {@code seed} (clause 2.1.6: chosen once for the load). */
    public static NURandConstants loadConstants(long seed) {
        return NURandConstants.forLoad(new SplittableRandom(LoadSeeds.derive(seed, 0, LoadSeeds.CONSTANTS)));
    }

    /** The rows a load of {@code warehouses} sends to one database, order lines at their expected count. */
    public static long expectedRows(int warehouses) {
        return InitialPopulation.ITEMS + warehouses * InitialPopulation.expectedRowsPerWarehouse();
    }

    public LoadInfo load(String jdbcUrl) {
        return load(List.of(jdbcUrl));
    }

    /** Loads the same data into every database; returns what was recorded in tpcc_load_info. */
    public LoadInfo load(List<String> jdbcUrls) {
        if (jdbcUrls.isEmpty()) {
            throw new IllegalArgumentException("no database to load: the list of JDBC URLs is empty");
        }
        if (new HashSet<>(jdbcUrls).size() != jdbcUrls.size()) {
            throw new IllegalArgumentException("a database URL is given twice: "
                    + jdbcUrls.stream().map(Secrets::maskUrl).toList());
        }
        LoadInfo info = new LoadInfo(options.seed(), options.warehouses(), loadConstants(options.seed()));
        for (String url : jdbcUrls) {
            requireEmpty(url);
        }
        for (String url : jdbcUrls) {
            onDatabase(url, "create the TPC-C tables and procedures", TpccSchema::install);
        }

        progress.start(expectedRows(options.warehouses()) * jdbcUrls.size());
        ExecutorService pool = newPool(options.threads());
        try {
            List<LoadTask> tasks = new ArrayList<>();
            InitialPopulation population = new InitialPopulation(info.seed(), info.loadConstants());
            for (String url : jdbcUrls) {
                // The largest tables first, so the pool is not left waiting on one long task at the end.
                for (int w = 1; w <= options.warehouses(); w++) {
                    int warehouse = w;
                    tasks.add(new LoadTask(
                            url,
                            "order_line of warehouse " + w,
                            c -> population.orderLines(c, warehouse, progress::advance)));
                    tasks.add(new LoadTask(
                            url, "stock of warehouse " + w, c -> population.stock(c, warehouse, progress::advance)));
                }
                tasks.add(new LoadTask(url, "item", c -> population.items(c, progress::advance)));
                for (int w = 1; w <= options.warehouses(); w++) {
                    int warehouse = w;
                    tasks.add(new LoadTask(
                            url,
                            "customer of warehouse " + w,
                            c -> population.customers(c, warehouse, progress::advance)));
                    tasks.add(new LoadTask(
                            url,
                            "orders and new_order of warehouse " + w,
                            c -> population.orders(c, warehouse, progress::advance)));
                    tasks.add(new LoadTask(
                            url,
                            "history of warehouse " + w,
                            c -> population.history(c, warehouse, progress::advance)));
                    tasks.add(new LoadTask(
                            url,
                            "warehouse and district of warehouse " + w,
                            c -> population.warehouseAndDistricts(c, warehouse, progress::advance)));
                }
            }
            runAll(pool, tasks);

            progress.phase("creating indexes and analyzing " + jdbcUrls.size() + " database(s)");
            List<LoadTask> finishing = new ArrayList<>();
            for (String url : jdbcUrls) {
                finishing.add(new LoadTask(url, "create indexes, ANALYZE and record the load", c -> {
                    TpccSchema.createIndexes(c);
                    try (Statement statement = c.createStatement()) {
                        statement.execute("ANALYZE");
                    }
                    TpccSchema.writeLoadInfo(c, info, LOAD_TIMESTAMP);
                }));
            }
            runAll(pool, finishing);
        } finally {
            pool.shutdownNow();
        }
        progress.finish(options.warehouses(), jdbcUrls.size());
        return info;
    }

    private static void requireEmpty(String url) {
        DatabaseState state;
        try (Connection connection = JdbcConnections.connect(url)) {
            state = TpccSchema.inspect(connection);
        } catch (SQLException e) {
            throw new LoadException(
                    "cannot inspect " + Secrets.maskUrl(url) + " before loading: " + e.getMessage() + sqlState(e), e);
        }
        if (!state.isEmpty()) {
            throw new LoadException("refusing to load into " + Secrets.maskUrl(url) + ": the database is not empty: "
                    + state + "; load into an empty database");
        }
    }

    @FunctionalInterface
    private interface DatabaseWork {
        void run(Connection connection) throws SQLException;
    }

    /** One unit of loading work on one database, with its own connection. */
    private record LoadTask(String url, String description, DatabaseWork work) {
        Void call() {
            onDatabase(url, description, work);
            return null;
        }
    }

    private static void onDatabase(String url, String description, DatabaseWork work) {
        try (Connection connection = JdbcConnections.connect(url)) {
            try (Statement statement = connection.createStatement()) {
                // Nothing is lost by a crash mid-load that a reload would not redo anyway.
                statement.execute("SET synchronous_commit TO off");
            }
            work.run(connection);
        } catch (SQLException e) {
            throw new LoadException(
                    "loading " + Secrets.maskUrl(url) + " failed: cannot " + describe(description) + ": "
                            + e.getMessage() + sqlState(e),
                    e);
        }
    }

    private static String describe(String description) {
        return description.startsWith("create") ? description : "load " + description;
    }

    private static String sqlState(SQLException e) {
        return e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")";
    }

    /** Runs every task; the first failure cancels the others and is thrown. */
    private static void runAll(ExecutorService pool, List<LoadTask> tasks) {
        ExecutorCompletionService<Void> completion = new ExecutorCompletionService<>(pool);
        List<Future<Void>> futures = new ArrayList<>();
        for (LoadTask task : tasks) {
            futures.add(completion.submit(task::call));
        }
        try {
            for (int i = 0; i < tasks.size(); i++) {
                completion.take().get();
            }
        } catch (ExecutionException e) {
            futures.forEach(future -> future.cancel(true));
            Throwable cause = e.getCause();
            if (cause instanceof LoadException loadException) {
                throw new LoadException(loadException.getMessage(), loadException.getCause());
            }
            throw new LoadException("a loader task failed: " + cause, cause);
        } catch (InterruptedException e) {
            futures.forEach(future -> future.cancel(true));
            Thread.currentThread().interrupt();
            throw new LoadException("interrupted while loading", e);
        }
    }

    private static ExecutorService newPool(int threads) {
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "tpcc-loader-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    }
}
