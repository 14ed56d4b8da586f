package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.node.NodeServer;
import org.gargamel.node.RulesCheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * Issue 14, "rules checked against reality", through the real scheduler and three nodes on embedded PostgreSQL, with
 * deliberately unsound rules for the small accounts application: deposit declares that it writes {@code audits} (it
 * writes {@code balance}: a column outside its rule, in PSI; SI keys are rows, so there it is covered), and transfer
 * declares the {@code from} row twice (it writes the {@code to} row: a row outside its rule). With {@code rulesCheck: reject} both calls are REJECTED with SQLSTATE
 * ZG001, naming the procedure, the rule's file and line, the row and the column, and no replica holds what they wrote;
 * with {@code warn} they commit; either way the node counts them and logs a WARN line. Centralized mode does not
 * check: the rules do not decide what runs side by side there.
 */
@Tag("integration")
class RulesCheckTest {
    private static final long TIMEOUT_SECONDS = 60;
    private static AccountsReplicas accounts;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger executionLogger =
            (Logger) LoggerFactory.getLogger("org.gargamel.node.execution.ScheduledExecution");

    @BeforeAll
    static void startReplicas() {
        accounts = new AccountsReplicas();
    }

    @AfterAll
    static void stopReplicas() {
        if (accounts != null) {
            accounts.close();
        }
    }

    @BeforeEach
    void freshDatabasesAndLog() throws Exception {
        accounts.reset();
        log.start();
        executionLogger.addAppender(log);
    }

    @AfterEach
    void detachLog() {
        executionLogger.detachAppender(log);
    }

    /** accounts-rules.yaml with deposit's column and transfer's second row wrong; its path. */
    private static String unsoundRules(Path directory) throws Exception {
        Path file = Path.of(AccountsReplicas.rules(directory, true));
        String rules = Files.readString(file, StandardCharsets.UTF_8);
        String depositWrong = rules.replace(
                "{update: account, key: [id], columns: [balance]}", "{update: account, key: [id], columns: [audits]}");
        String unsound = depositWrong.replace(
                "{update: account, key: [to_id], columns: [balance]}",
                "{update: account, key: [from_id], columns: [balance]}");
        assertNotEquals(rules, depositWrong, "deposit's rule is in accounts-rules.yaml");
        assertNotEquals(depositWrong, unsound, "transfer's rule is in accounts-rules.yaml");
        Path written = directory.resolve("unsound-rules.yaml");
        Files.writeString(written, unsound, StandardCharsets.UTF_8);
        return written.toString();
    }

    @ParameterizedTest(name = "{0} {1} rulesCheck {2}")
    @CsvSource({"gargamel, psi, reject", "gargamel, si, reject", "gargamel, psi, warn", "centralized, psi, reject"})
    void aWriteOutsideItsRuleIsReportedAndRejectedOrCommitted(
            String mode, String isolation, String check, @TempDir Path directory) throws Exception {
        RulesCheck reaction = RulesCheck.parse(check);
        boolean checked = mode.equals("gargamel");
        boolean rejected = checked && reaction == RulesCheck.REJECT;
        // deposit writes another column of its declared row: outside its rule in PSI only (SI keys are rows)
        boolean depositUnsound = checked && isolation.equals("psi");
        int unsoundCalls = (checked ? 1 : 0) + (depositUnsound ? 1 : 0);
        String rules = unsoundRules(directory);
        ProcedureCall deposit = ProcedureCall.of("deposit", 3, new BigDecimal("1.00"));
        ProcedureCall transfer = ProcedureCall.of("transfer", 5, 6, new BigDecimal("2.00"));
        try (InProcessGargamel gargamel =
                new InProcessGargamel(mode, isolation, accounts.servers.jdbcUrls(), 2, rules, reaction)) {
            CallOutcome depositOutcome = gargamel.client.submit(deposit).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            CallOutcome transferOutcome = gargamel.client.submit(transfer).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            // Later calls on the same rows, whose rules are sound, go on.
            CallOutcome audit =
                    gargamel.client.submit(ProcedureCall.of("audit", 3)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.COMMITTED, audit.status(), audit.toString());
            if (rejected && depositUnsound) {
                assertRejected(depositOutcome, rules, "deposit", "account(id=3) column balance", "columns [audits]");
            } else {
                assertEquals(CallOutcome.Status.COMMITTED, depositOutcome.status(), depositOutcome.toString());
            }
            if (rejected) {
                assertRejected(transferOutcome, rules, "transfer", "account(id=6) column balance", "key [from_id]");
            } else {
                assertEquals(CallOutcome.Status.COMMITTED, transferOutcome.status(), transferOutcome.toString());
            }
            gargamel.client.awaitQuiescence(Duration.ofSeconds(TIMEOUT_SECONDS));
            assertEquals(unsoundCalls, gargamel.sum(statistics -> statistics.unsoundWrites()), "unsound writes");
            for (NodeServer node : gargamel.nodes) {
                assertFalse(
                        node.failure().isDone(),
                        node.name() + " stopped: " + node.failure().getNow(null));
                assertEquals(
                        node.statistics().unsoundWrites(),
                        ((Number) node.statistics().toMap().get("unsoundWrites")).longValue(),
                        "unsoundWrites in " + node.name() + "'s statistics file");
            }
        }
        List<String> warnings = log.list.stream()
                .filter(event -> event.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
        assertEquals(unsoundCalls, warnings.size(), warnings.toString());
        if (depositUnsound) {
            assertWarned(
                    warnings, "deposit", rules, "update account key [id] columns [audits]", "account(id=3)", rejected);
        }
        if (checked) {
            assertWarned(
                    warnings,
                    "transfer",
                    rules,
                    "update account key [from_id] columns [balance]",
                    "account(id=6)",
                    rejected);
        }
        for (int replica = 0; replica < AccountsReplicas.REPLICAS; replica++) {
            assertEquals(
                    rejected && depositUnsound ? "100.00" : "101.00",
                    accounts.balance(replica, 3),
                    "replica " + replica);
            assertEquals(rejected ? "100.00" : "98.00", accounts.balance(replica, 5), "replica " + replica);
            assertEquals(rejected ? "100.00" : "102.00", accounts.balance(replica, 6), "replica " + replica);
            assertEquals("1", accounts.query(replica, "SELECT audits FROM account WHERE id = 3"));
        }
        accounts.assertConverged();
    }

    private static void assertWarned(
            List<String> warnings, String procedure, String rules, String rule, String row, boolean rejected) {
        String line = warnings.stream()
                .filter(warning -> warning.contains(procedure + " wrote"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no WARN line for " + procedure + ": " + warnings));
        for (String word : List.of(
                "unsound rule",
                rules + ":",
                rule,
                row + " column balance",
                rejected ? "rolled back before commit" : "committed anyway")) {
            assertTrue(line.contains(word), "'" + word + "' in " + line);
        }
    }

    private static void assertRejected(CallOutcome outcome, String rules, String procedure, String write, String rule) {
        String what = procedure + ": " + outcome;
        assertEquals(CallOutcome.Status.REJECTED, outcome.status(), what);
        assertEquals(RulesCheck.SQLSTATE, outcome.sqlState(), what);
        for (String word : List.of(procedure + " wrote", write, rules + ":", rule, "nothing changed")) {
            assertTrue(outcome.message().contains(word), "'" + word + "' in " + what);
        }
    }
}
