package org.gargamel.bank.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.gargamel.bank.schema.BankLoader;
import org.gargamel.bank.schema.BankSchema;
import org.gargamel.bank.workload.Acknowledged;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bank's procedures and its invariant checker on a real PostgreSQL: a loaded bank and one changed only by its
 * procedures pass every invariant; each deliberately broken state (money appearing, a negative balance, a lost or
 * doubled row, a transfer missing an entry) is caught by the invariant it breaks, and the convergence check over the
 * catalogue names the table where two databases differ.
 */
@Tag("integration")
class BankInvariantsTest {
    private static final BigDecimal INITIAL = new BigDecimal("1000.00");
    private static PostgresCluster servers;

    @BeforeAll
    static void start() {
        servers = PostgresCluster.embedded(2);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    @BeforeEach
    void loadBoth() throws SQLException {
        for (int i = 0; i < 2; i++) {
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
            }
        }
        new BankLoader(2, 10, INITIAL, silent()).load(servers.jdbcUrls());
    }

    @Test
    void aLoadedBankHoldsEveryInvariant() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            assertEquals(BankSchema.State.LOADED, BankSchema.inspect(connection));
            Expectation.Baseline baseline = BankInvariants.baseline(connection);
            assertEquals(0, new BigDecimal("20000.00").compareTo(baseline.total()), baseline::toString);
            assertEquals(20, baseline.accounts());
            DatabaseInvariants report = BankInvariants.check(connection, "db0", expectNothing(baseline));
            assertTrue(report.passed(), report::render);
            assertEquals(7, report.invariants().size(), report::render);
        }
    }

    @Test
    void callsOfTheProceduresKeepEveryInvariant() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            Expectation.Baseline baseline = BankInvariants.baseline(connection);
            long opened = Long.parseLong(query(connection, "SELECT open_account(2, 'ada', 50.00)"));
            assertEquals(21, opened, "the account sequence continues after the load");
            query(connection, "SELECT deposit(3, 25.50)");
            query(connection, "SELECT withdraw(4, 100.00)");
            long transfer = Long.parseLong(query(connection, "SELECT transfer(5, " + opened + ", 300.00)"));
            SQLException insufficient =
                    assertThrows(SQLException.class, () -> query(connection, "SELECT withdraw(6, 5000.00)"));
            assertEquals(BankSchema.INSUFFICIENT_FUNDS_SQLSTATE, insufficient.getSQLState());
            SQLException unknown = assertThrows(SQLException.class, () -> query(connection, "SELECT deposit(99, 1)"));
            assertEquals(BankSchema.NO_SUCH_ACCOUNT_SQLSTATE, unknown.getSQLState());
            assertEquals("(350.00,350.00,2)", query(connection, "SELECT account_statement(" + opened + ")::text"));
            assertEquals("(11,10350.00,10350.00)", query(connection, "SELECT branch_audit(2)::text"), "branch 2 audit");

            Expectation expected = new Expectation(
                    baseline,
                    new BigDecimal("75.50"),
                    new BigDecimal("100.00"),
                    List.of(new Acknowledged.Account(opened, 2, "ada", new BigDecimal("50.00"))),
                    List.of(new Acknowledged.Transfer(transfer, 5, opened, new BigDecimal("300.00"))),
                    0);
            DatabaseInvariants report = BankInvariants.check(connection, "db0", expected);
            assertTrue(report.passed(), report::render);
        }
    }

    @Test
    void moneyFromNowhereBreaksTheMoneyAndTheLedger() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            Expectation.Baseline baseline = BankInvariants.baseline(connection);
            query(connection, "UPDATE account SET balance = balance + 1 WHERE id = 7 RETURNING id");
            DatabaseInvariants report = BankInvariants.check(connection, "db0", expectNothing(baseline));
            assertEquals(List.of("money", "ledger matches balances"), violated(report), report::render);
            assertTrue(report.render().contains("holds 20001.00, expected 20000.00"), report::render);
        }
    }

    @Test
    void aNegativeBalanceIsCaughtEvenWhenItsEntriesAgree() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            query(connection, "UPDATE account SET balance = -5 WHERE id = 8 RETURNING id");
            query(
                    connection,
                    "INSERT INTO entry (account_id, amount, kind) VALUES (8, -1005.00, 'withdraw') " + "RETURNING id");
            DatabaseInvariants report = BankInvariants.check(connection, "db0", null);
            assertEquals(List.of("no negative balance"), violated(report), report::render);
            assertTrue(report.render().contains("e.g. id 8"), report::render);
        }
    }

    @Test
    void aLostAcknowledgedTransferAndAnAccountCreatedTwiceAreCaught() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            Expectation.Baseline baseline = BankInvariants.baseline(connection);
            long first = Long.parseLong(query(connection, "SELECT open_account(1, 'bob', 0)"));
            query(connection, "SELECT open_account(1, 'bob', 0)"); // the same call run a second time
            Expectation expected = new Expectation(
                    baseline,
                    BigDecimal.ZERO,
                    BigDecimal.ZERO,
                    List.of(new Acknowledged.Account(first, 1, "bob", BigDecimal.ZERO)),
                    List.of(new Acknowledged.Transfer(77, 1, 2, BigDecimal.TEN)),
                    0);
            DatabaseInvariants report = BankInvariants.check(connection, "db0", expected);
            assertEquals(
                    List.of("acknowledged transfers present", "nothing created twice"),
                    violated(report),
                    report::render);
        }
    }

    @Test
    void aTransferMissingOneOfItsEntriesIsCaught() throws SQLException {
        try (Connection connection = servers.connect(0)) {
            long transfer = Long.parseLong(query(connection, "SELECT transfer(1, 2, 10.00)"));
            query(connection, "DELETE FROM entry WHERE transfer_id = " + transfer + " AND account_id = 2 RETURNING id");
            query(connection, "UPDATE account SET balance = balance - 10 WHERE id = 2 RETURNING id");
            DatabaseInvariants report = BankInvariants.check(connection, "db0", null);
            assertEquals(List.of("transfers recorded by their two entries"), violated(report), report::render);
        }
    }

    @Test
    void convergenceOverTheCatalogueNamesTheTableThatDiffers() throws SQLException {
        TableChecksums checksums = TableChecksums.ofCatalogue();
        ConvergenceReport same = checksums.compare(servers.jdbcUrls());
        assertTrue(same.identical(), same::toString);
        assertEquals(
                BankSchema.TABLES.stream().sorted().toList(),
                same.tables().stream().map(t -> t.table()).toList());
        try (Connection connection = servers.connect(1)) {
            query(connection, "SELECT deposit(3, 1.00)");
        }
        ConvergenceReport differ = checksums.compare(servers.jdbcUrls());
        assertFalse(differ.identical());
        assertEquals(List.of("account", "entry"), differ.differingTables());
    }

    private static Expectation expectNothing(Expectation.Baseline baseline) {
        return new Expectation(baseline, BigDecimal.ZERO, BigDecimal.ZERO, List.of(), List.of(), 0);
    }

    private static List<String> violated(DatabaseInvariants report) {
        return report.invariants().stream()
                .filter(invariant -> !invariant.passed())
                .map(Invariant::name)
                .toList();
    }

    private static String query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    private static BankLoader.Progress silent() {
        return new BankLoader.Progress() {
            @Override
            public void start(long expectedRows) {}

            @Override
            public void advance(long rows) {}
        };
    }
}
