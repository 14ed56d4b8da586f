package org.gargamel.launcher.run;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.gargamel.bank.schema.BankLoader;
import org.gargamel.bank.schema.BankSchema;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.tpcc.loader.LoadProgress;

/** The PostgreSQL side of the bank commands: what a database holds, loading, and identical replicas before a run. */
public final class BankDatabases {
    /** Every account starts with this balance. */
    public static final BigDecimal INITIAL_BALANCE = new BigDecimal("1000.00");

    private BankDatabases() {}

    public static BankSchema.State inspect(String url) {
        try (Connection connection = JdbcConnections.connect(url)) {
            return BankSchema.inspect(connection);
        } catch (SQLException e) {
            throw new CommandFailedException("cannot inspect " + Secrets.maskUrl(url) + ": " + e.getMessage(), e);
        }
    }

    /** Loads every database of {@code urls} (each must be empty, checked before any is written), with a progress bar. */
    public static void load(List<String> urls, int branches, int accountsPerBranch, PrintStream err) {
        for (String url : urls) {
            if (inspect(url) != BankSchema.State.EMPTY) {
                throw new CommandFailedException("refusing to load the bank into " + Secrets.maskUrl(url)
                        + ": the database is not empty (schema public has tables); load into an empty database");
            }
        }
        LoadProgress bar = TpccDatabases.progress(err);
        long start = System.nanoTime();
        BankLoader loader = new BankLoader(branches, accountsPerBranch, INITIAL_BALANCE, new BankLoader.Progress() {
            @Override
            public void start(long expectedRows) {
                bar.start(expectedRows);
            }

            @Override
            public void advance(long rows) {
                bar.advance(rows);
            }
        });
        loader.load(urls);
        bar.phase(String.format(
                "loaded the bank (%d branch(es), %,d accounts of %s) into %d database(s) in %.1f s",
                branches,
                loader.accounts(),
                INITIAL_BALANCE.toPlainString(),
                urls.size(),
                (System.nanoTime() - start) / 1e9));
    }

    /**
     * Makes every replica hold the same bank: loads them all when all are empty; accepts them when all hold the bank
     * and are identical table by table; refuses anything else, naming the database.
     */
    static Scale prepareReplicas(List<String> urls, int branches, int accountsPerBranch, PrintStream err) {
        List<BankSchema.State> states =
                urls.stream().map(BankDatabases::inspect).toList();
        if (states.stream().allMatch(state -> state == BankSchema.State.EMPTY)) {
            load(urls, branches, accountsPerBranch, err);
            return new Scale(branches, (long) branches * accountsPerBranch);
        }
        for (int i = 0; i < urls.size(); i++) {
            if (states.get(i) != BankSchema.State.LOADED) {
                throw new CommandFailedException("refusing to run on " + Secrets.maskUrl(urls.get(i)) + ": it holds "
                        + (states.get(i) == BankSchema.State.EMPTY
                                ? "nothing while other replicas hold the bank"
                                : "something other than the bank")
                        + "; give replicas that are all empty (they are loaded) or all hold the same bank");
            }
        }
        err.println("using the bank already loaded; comparing the replicas before the run ...");
        ConvergenceReport before = TableChecksums.ofCatalogue().compare(urls);
        if (!before.identical()) {
            throw new CommandFailedException(
                    "refusing to run: the replicas differ before the run in table(s) " + before.differingTables());
        }
        try (Connection connection = JdbcConnections.connect(urls.get(0));
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT (SELECT count(*) FROM branch), (SELECT count(*) FROM account WHERE owner LIKE 'owner %')")) {
            rows.next();
            return new Scale(rows.getInt(1), rows.getLong(2));
        } catch (SQLException e) {
            throw new CommandFailedException(
                    "cannot read the bank's scale at " + Secrets.maskUrl(urls.get(0)) + ": " + e.getMessage(), e);
        }
    }

    /**
     * The bank the workload runs on: {@code branches} branches and the loaded accounts, ids 1 to {@code accounts}
     * (the loader's, owned by 'owner N'; accounts opened by runs have ids from the replicas' residue classes).
     */
    record Scale(int branches, long accounts) {}
}
