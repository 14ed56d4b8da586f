package org.gargamel.bank.check;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.bank.workload.Acknowledged;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.common.convergence.Snapshot;
import org.gargamel.common.convergence.SqlStates;

/**
 * The bank's invariants on one database, all read from one snapshot. Without an expectation (gargamel bank check), the
 * ones the data alone decides: no negative balance, every balance equal to the sum of its account's entries, every
 * transfer recorded by exactly its two entries. After a run, also: the money equals the money before plus the
 * acknowledged deposits and opening balances minus the acknowledged withdrawals; every acknowledged account and
 * transfer is there as acknowledged; no account or transfer beyond the acknowledged ones (and those of unknown
 * outcome) was created: no call ran twice.
 */
public final class BankInvariants {
    private static final String NEGATIVE = "SELECT count(*), min(id) FROM account WHERE balance < 0";
    private static final String UNBALANCED = """
            SELECT count(*), min(a.id) FROM account a
            LEFT JOIN (SELECT account_id, sum(amount) AS total FROM entry GROUP BY account_id) e ON e.account_id = a.id
            WHERE a.balance <> coalesce(e.total, 0)""";
    private static final String ORPHAN_ENTRIES =
            "SELECT count(*), min(e.id) FROM entry e WHERE NOT EXISTS (SELECT 1 FROM account a WHERE a.id = e.account_id)";
    /** Entries grouped by transfer, ordered by amount: the -amount of from_id first, then the +amount of to_id. */
    private static final String BROKEN_TRANSFERS = """
            SELECT count(*), min(t.id) FROM transfer t
            LEFT JOIN (SELECT e.transfer_id, count(*) AS entries,
                              array_agg(e.account_id ORDER BY e.amount) AS accounts,
                              array_agg(e.amount ORDER BY e.amount) AS amounts
                       FROM entry e WHERE e.transfer_id IS NOT NULL GROUP BY e.transfer_id) g
                ON g.transfer_id = t.id
            WHERE g.entries IS DISTINCT FROM 2
               OR g.accounts <> ARRAY[t.from_id, t.to_id]
               OR g.amounts <> ARRAY[-t.amount, t.amount]""";

    private static final String MISSING_ACCOUNTS = """
            SELECT count(*), min(k.id) FROM unnest(?::bigint[], ?::integer[], ?::text[], ?::numeric[])
                AS k(id, branch_id, owner, initial)
            WHERE NOT EXISTS (SELECT 1 FROM account a WHERE a.id = k.id AND a.branch_id = k.branch_id
                              AND a.owner = k.owner)
               OR NOT EXISTS (SELECT 1 FROM entry e WHERE e.account_id = k.id AND e.kind = 'open'
                              AND e.amount = k.initial)""";
    private static final String MISSING_TRANSFERS = """
            SELECT count(*), min(k.id) FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::numeric[])
                AS k(id, from_id, to_id, amount)
            WHERE NOT EXISTS (SELECT 1 FROM transfer t WHERE t.id = k.id AND t.from_id = k.from_id
                              AND t.to_id = k.to_id AND t.amount = k.amount)""";

    private BankInvariants() {}

    /** The money and row counts of the database before a run. */
    public static Expectation.Baseline baseline(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT (SELECT coalesce(sum(balance), 0) FROM account), "
                        + "(SELECT count(*) FROM account), (SELECT count(*) FROM transfer)")) {
            rows.next();
            return new Expectation.Baseline(rows.getBigDecimal(1), rows.getLong(2), rows.getLong(3));
        }
    }

    /** Checks the database behind {@code connection}, named {@code database}; {@code expected} may be null. */
    public static DatabaseInvariants check(Connection connection, String database, Expectation expected) {
        try (Snapshot snapshot = Snapshot.begin(connection, database)) {
            List<Invariant> invariants = new ArrayList<>();
            if (expected != null) {
                invariants.add(money(connection, expected));
            }
            invariants.add(none(connection, NEGATIVE, "no negative balance", "account(s) below zero, e.g. id "));
            Invariant unbalanced = none(connection, UNBALANCED, "balances equal entries", "");
            Invariant orphans = none(connection, ORPHAN_ENTRIES, "entries of existing accounts", "");
            invariants.add(new Invariant(
                    "ledger matches balances",
                    unbalanced.passed() && orphans.passed(),
                    unbalanced.passed() && orphans.passed()
                            ? "every balance is the sum of its entries"
                            : unbalanced.detail() + " account(s) whose balance is not the sum of their entries; "
                                    + orphans.detail() + " entries of no account"));
            invariants.add(none(
                    connection,
                    BROKEN_TRANSFERS,
                    "transfers recorded by their two entries",
                    "transfer(s) without exactly their two entries, e.g. id "));
            if (expected != null) {
                invariants.add(acknowledgedAccounts(connection, expected));
                invariants.add(acknowledgedTransfers(connection, expected));
                invariants.add(nothingTwice(connection, expected));
            }
            snapshot.commit();
            return new DatabaseInvariants(database, invariants);
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot check the bank's invariants on " + database + ": " + e.getMessage() + SqlStates.describe(e),
                    e);
        }
    }

    private static Invariant money(Connection connection, Expectation expected) throws SQLException {
        BigDecimal total;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT coalesce(sum(balance), 0) FROM account")) {
            rows.next();
            total = rows.getBigDecimal(1);
        }
        boolean exact = total.compareTo(expected.total()) == 0;
        return new Invariant(
                "money",
                exact,
                "holds " + total.toPlainString() + ", expected "
                        + expected.total().toPlainString() + " = "
                        + expected.baseline().total().toPlainString() + " before + "
                        + expected.deposited().toPlainString() + " deposited - "
                        + expected.withdrawn().toPlainString() + " withdrawn");
    }

    /** An invariant whose query counts its violations (count, smallest id). */
    private static Invariant none(Connection connection, String query, String name, String violation)
            throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(query)) {
            rows.next();
            long count = rows.getLong(1);
            return new Invariant(
                    name,
                    count == 0,
                    count == 0
                            ? "none"
                            : violation.isEmpty() ? Long.toString(count) : count + " " + violation + rows.getLong(2));
        }
    }

    private static Invariant acknowledgedAccounts(Connection connection, Expectation expected) throws SQLException {
        List<Acknowledged.Account> accounts = expected.accounts();
        try (PreparedStatement statement = connection.prepareStatement(MISSING_ACCOUNTS)) {
            statement.setArray(1, array(connection, "bigint", accounts.stream().map(Acknowledged.Account::id)));
            statement.setArray(2, array(connection, "integer", accounts.stream().map(Acknowledged.Account::branch)));
            statement.setArray(3, array(connection, "text", accounts.stream().map(Acknowledged.Account::owner)));
            statement.setArray(4, array(connection, "numeric", accounts.stream().map(Acknowledged.Account::initial)));
            return missing(statement, "acknowledged accounts present", accounts.size(), "account(s)");
        }
    }

    private static Invariant acknowledgedTransfers(Connection connection, Expectation expected) throws SQLException {
        List<Acknowledged.Transfer> transfers = expected.transfers();
        try (PreparedStatement statement = connection.prepareStatement(MISSING_TRANSFERS)) {
            statement.setArray(1, array(connection, "bigint", transfers.stream().map(Acknowledged.Transfer::id)));
            statement.setArray(2, array(connection, "bigint", transfers.stream().map(Acknowledged.Transfer::from)));
            statement.setArray(3, array(connection, "bigint", transfers.stream().map(Acknowledged.Transfer::to)));
            statement.setArray(
                    4, array(connection, "numeric", transfers.stream().map(Acknowledged.Transfer::amount)));
            return missing(statement, "acknowledged transfers present", transfers.size(), "transfer(s)");
        }
    }

    private static Invariant missing(PreparedStatement statement, String name, int acknowledged, String what)
            throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            rows.next();
            long missing = rows.getLong(1);
            return new Invariant(
                    name,
                    missing == 0,
                    missing == 0
                            ? "all " + acknowledged + " " + what + " as acknowledged"
                            : missing + " of " + acknowledged + " acknowledged " + what
                                    + " missing or different, e.g. id " + rows.getLong(2));
        }
    }

    private static Invariant nothingTwice(Connection connection, Expectation expected) throws SQLException {
        long accounts;
        long transfers;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT (SELECT count(*) FROM account), (SELECT count(*) FROM transfer)")) {
            rows.next();
            accounts = rows.getLong(1);
            transfers = rows.getLong(2);
        }
        long extraAccounts =
                accounts - expected.baseline().accounts() - expected.accounts().size();
        long extraTransfers = transfers
                - expected.baseline().transfers()
                - expected.transfers().size();
        boolean passed = extraAccounts >= 0
                && extraTransfers >= 0
                && extraAccounts + extraTransfers <= expected.unknownOutcomes();
        return new Invariant(
                "nothing created twice",
                passed,
                extraAccounts + " account(s) and " + extraTransfers + " transfer(s) beyond the acknowledged ones ("
                        + expected.unknownOutcomes() + " call(s) of unknown outcome)");
    }

    private static Array array(Connection connection, String type, java.util.stream.Stream<?> values)
            throws SQLException {
        return connection.createArrayOf(type, values.toArray());
    }
}
