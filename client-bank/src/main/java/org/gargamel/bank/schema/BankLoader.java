package org.gargamel.bank.schema;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.List;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * Loads the bank into empty databases, identically: {@code branches} branches of {@code accountsPerBranch} accounts
 * each (ids 1..N from the account sequence, in branch order), each opened with {@code initialBalance} and its 'open'
 * entry. Every timestamp is the one the loader chose, so replicas loaded one by one hold the same rows; only the calls
 * of a run draw {@code now()} (and ship it in their write-sets).
 */
public final class BankLoader {
    /** Accounts inserted per statement: the unit the progress advances by. */
    static final int BATCH = 1_000;

    /** Where the loader reports its rows (a progress bar). */
    public interface Progress {
        void start(long expectedRows);

        void advance(long rows);
    }

    private final int branches;
    private final int accountsPerBranch;
    private final BigDecimal initialBalance;
    private final Progress progress;

    public BankLoader(int branches, int accountsPerBranch, BigDecimal initialBalance, Progress progress) {
        if (branches < 1 || accountsPerBranch < 1 || initialBalance.signum() < 0) {
            throw new IllegalArgumentException("a bank needs at least one branch and one account per branch and a "
                    + "non-negative initial balance, got " + branches + ", " + accountsPerBranch + ", "
                    + initialBalance);
        }
        this.branches = branches;
        this.accountsPerBranch = accountsPerBranch;
        this.initialBalance = initialBalance;
        this.progress = progress;
    }

    /** The accounts a load creates: ids 1 to this. */
    public long accounts() {
        return (long) branches * accountsPerBranch;
    }

    /** Loads every database, one after the other; each must be empty. */
    public void load(List<String> jdbcUrls) {
        Timestamp openedAt = Timestamp.valueOf(LocalDateTime.of(2026, 1, 1, 9, 0));
        progress.start(accounts() * 2 * jdbcUrls.size());
        for (String url : jdbcUrls) {
            try (Connection connection = JdbcConnections.connect(url)) {
                loadOne(connection, openedAt);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "cannot load the bank into " + Secrets.maskUrl(url) + ": " + e.getMessage()
                                + (e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")"),
                        e);
            }
        }
    }

    private void loadOne(Connection connection, Timestamp openedAt) throws SQLException {
        BankSchema.install(connection);
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO branch (id, name) SELECT b, 'branch ' || b FROM generate_series(1, "
                    + branches + ") AS b");
        }
        try (PreparedStatement accounts =
                        connection.prepareStatement("INSERT INTO account (branch_id, owner, balance, opened_at) "
                                + "SELECT ?, 'owner ' || (? + n), ?, ? FROM generate_series(1, ?) AS n "
                                + "ORDER BY n");
                PreparedStatement entries =
                        connection.prepareStatement("INSERT INTO entry (account_id, amount, kind, at) "
                                + "SELECT a.id, a.balance, 'open', a.opened_at FROM account a "
                                + "WHERE a.id > ? ORDER BY a.id")) {
            for (int branch = 1; branch <= branches; branch++) {
                for (int done = 0; done < accountsPerBranch; done += BATCH) {
                    int count = Math.min(BATCH, accountsPerBranch - done);
                    long before = (long) (branch - 1) * accountsPerBranch + done;
                    accounts.setInt(1, branch);
                    accounts.setLong(2, before);
                    accounts.setBigDecimal(3, initialBalance);
                    accounts.setTimestamp(4, openedAt);
                    accounts.setInt(5, count);
                    accounts.executeUpdate();
                    entries.setLong(1, before);
                    entries.executeUpdate();
                    progress.advance(2L * count);
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ANALYZE");
        }
        connection.commit();
        connection.setAutoCommit(true);
    }
}
