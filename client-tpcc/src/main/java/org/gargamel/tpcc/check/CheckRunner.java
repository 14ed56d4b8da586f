package org.gargamel.tpcc.check;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.DatabaseChecksums;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.tpcc.schema.TpccSchema;
import org.gargamel.tpcc.schema.TpccTable;

/**
 * What {@code gargamel tpcc check --jdbc-url URL [...]} runs: the consistency conditions on every
 * database and the comparison of their table checksums. Databases are checked in parallel (each is a
 * separate server, or at least a separate snapshot), a bounded number at a time.
 */
public final class CheckRunner {
    private static final int MAX_PARALLEL_DATABASES = 4;

    private final ConsistencyChecker consistencyChecker = new ConsistencyChecker();
    /** The nine tables of clause 1.3, in the order the reports list them. */
    public static final List<String> TABLES =
            TpccSchema.TABLES.stream().map(TpccTable::name).toList();

    private final TableChecksums tableChecksums = new TableChecksums(TABLES);

    /** Checks every database; databases are named {@code db<index>} and their URL without password. */
    public CheckReport run(List<String> jdbcUrls) {
        if (jdbcUrls.isEmpty()) {
            throw new IllegalArgumentException("no database to check: give at least one --jdbc-url");
        }
        List<String> names = DatabaseNames.of(jdbcUrls);
        AtomicInteger threads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(
                Math.min(jdbcUrls.size(), MAX_PARALLEL_DATABASES),
                task -> new Thread(task, "tpcc-check-" + threads.getAndIncrement()));
        try {
            List<Future<DatabaseCheck>> futures = new ArrayList<>();
            for (int i = 0; i < jdbcUrls.size(); i++) {
                String url = jdbcUrls.get(i);
                String name = names.get(i);
                futures.add(executor.submit(() ->
                        new DatabaseCheck(consistencyChecker.check(url, name), tableChecksums.compute(url, name))));
            }
            List<ConsistencyReport> consistency = new ArrayList<>();
            List<DatabaseChecksums> checksums = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                DatabaseCheck check = await(futures.get(i), names.get(i));
                consistency.add(check.consistency());
                checksums.add(check.checksums());
            }
            return CheckReport.of(consistency, ConvergenceReport.of(checksums));
        } finally {
            executor.shutdownNow();
        }
    }

    private static DatabaseCheck await(Future<DatabaseCheck> future, String database) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CheckException("interrupted while checking " + database, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CheckException checkException) {
                throw checkException;
            }
            throw new CheckException("checking " + database + " failed: " + cause, cause);
        }
    }

    private record DatabaseCheck(ConsistencyReport consistency, DatabaseChecksums checksums) {}
}
