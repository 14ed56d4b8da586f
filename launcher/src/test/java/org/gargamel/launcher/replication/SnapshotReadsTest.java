package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.node.NodeServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a call reads (docs/node.md, What a call reads), on a small application that is not TPC-C, through the real
 * scheduler and three nodes on embedded PostgreSQL replicas:
 *
 * <ul>
 * <li>a read-only procedure that reads the database in two statements (the total of the accounts, in two halves)
 * while transfers between the halves commit on every replica never returns a total that never existed: it reads one
 * snapshot, in PSI as in SI, whatever its volatility;
 * <li>an update procedure that reads a balance twice, which deposits write concurrently (a column-disjoint writer of
 * its row), and declares that read ({@code reads:}) is ordered with the deposits: they never commit between its reads;
 * <li>without the declaration it may see one commit between its two reads (PSI runs update calls at READ COMMITTED):
 * shown deterministically, as the documentation of the weaker guarantee.
 * </ul>
 */
@Tag("integration")
class SnapshotReadsTest {
    /**
     * Reads of the total per run. When read-only calls ran at READ COMMITTED outside SI, 22 (PSI) and 25 (round-robin)
     * of 40 were torn: a run with none is no accident.
     */
    private static final int READS = 40;

    private static final String TOTAL = "4000.00";
    private static final long TIMEOUT_SECONDS = 60;
    private static AccountsReplicas accounts;

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
    void freshDatabases() throws Exception {
        accounts.reset();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"gargamel, psi", "gargamel, si", "round-robin, psi"})
    void aReadOnlyCallReadsOneSnapshotWhileUpdateCallsCommit(String mode, String isolation, @TempDir Path directory)
            throws Exception {
        List<String> totals = new ArrayList<>();
        try (InProcessGargamel gargamel = new InProcessGargamel(
                mode, isolation, accounts.servers.jdbcUrls(), 2, AccountsReplicas.rules(directory, true))) {
            Transfers transfers = new Transfers(gargamel.client, 8);
            try {
                for (int i = 0; i < READS; i++) {
                    transfers.awaitCommitsBeyond(transfers.committed());
                    CallOutcome outcome =
                            gargamel.client.submit(ProcedureCall.of("total")).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
                    totals.add(outcome.result());
                }
            } finally {
                transfers.stop();
            }
            transfers.assertEveryOneCommitted();
            gargamel.client.awaitQuiescence(Duration.ofSeconds(TIMEOUT_SECONDS));
            assertNodesUp(gargamel, !mode.equals("round-robin")); // round-robin retries certification's losers
        }
        List<String> torn =
                totals.stream().filter(total -> !total.equals(TOTAL)).toList();
        assertEquals(List.of(), torn, torn.size() + " of " + READS + " totals are states that never existed");
        for (int replica = 0; replica < AccountsReplicas.REPLICAS; replica++) {
            assertEquals(TOTAL, accounts.query(replica, "SELECT sum(balance) FROM account"), "replica " + replica);
        }
        accounts.assertConverged();
    }

    @Test
    void anUpdateCallThatDeclaresItsReadsNeverSeesTheirWritersCommitInBetween(@TempDir Path directory)
            throws Exception {
        try (InProcessGargamel gargamel = new InProcessGargamel(
                "gargamel", "psi", accounts.servers.jdbcUrls(), 2, AccountsReplicas.rules(directory, true))) {
            GargamelClient client = gargamel.client;
            // The interleaving that tears the audit's reads without the declaration (below) cannot happen: the deposit
            // conflicts with the audit's read, so it waits for the audit while a later, unrelated call goes through.
            try (Gate gate = new Gate(7)) {
                CompletableFuture<CallOutcome> audit = client.submit(ProcedureCall.of("audit", 7));
                int replica = gate.awaitWaiter();
                CompletableFuture<CallOutcome> deposit = client.submit(deposit(7, "5.00"));
                CallOutcome unrelated = client.submit(deposit(8, "1.00")).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, unrelated.status(), unrelated.toString());
                assertFalse(deposit.isDone(), "the deposit ran while the audit it conflicts with had not finished");
                assertEquals("100.00", accounts.balance(replica, 7));
                gate.open();
                CallOutcome audited = audit.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, audited.status(), audited.toString());
                assertEquals("100.00 100.00", audited.result(), "the audit's two reads");
                CallOutcome deposited = deposit.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, deposited.status(), deposited.toString());
                assertEquals("105.00", deposited.result());
            }
            // Audits and deposits of three accounts at once: no audit sees two balances.
            List<CompletableFuture<CallOutcome>> audits = new ArrayList<>();
            List<CompletableFuture<CallOutcome>> deposits = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                audits.add(client.submit(ProcedureCall.of("audit", 1 + i % 3)));
                deposits.add(client.submit(deposit(1 + (i + 1) % 3, "1.00")));
            }
            List<String> torn = new ArrayList<>();
            for (CompletableFuture<CallOutcome> audit : audits) {
                CallOutcome outcome = audit.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
                String[] reads = outcome.result().split(" ", -1);
                if (!reads[0].equals(reads[1])) {
                    torn.add(outcome.result());
                }
            }
            for (CompletableFuture<CallOutcome> deposit : deposits) {
                CallOutcome outcome = deposit.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
            }
            assertEquals(List.of(), torn, "audits whose two reads differ");
            client.awaitQuiescence(Duration.ofSeconds(TIMEOUT_SECONDS));
            assertNodesUp(gargamel, true);
        }
        for (int replica = 0; replica < AccountsReplicas.REPLICAS; replica++) {
            assertEquals("120.00", accounts.balance(replica, 1), "replica " + replica);
            assertEquals("105.00", accounts.balance(replica, 7), "replica " + replica);
            assertEquals("101.00", accounts.balance(replica, 8), "replica " + replica);
        }
        accounts.assertConverged();
    }

    /**
     * The weaker guarantee, as documented: an update call in PSI runs at READ COMMITTED, so a cell that only
     * non-conflicting calls write (here the balance, for an audit that does not declare reading it: the audit writes
     * another column of the row) may be seen at two states by two statements of the call.
     */
    @Test
    void withoutTheDeclarationTwoReadsOfACellMaySeeAColumnDisjointWriterCommitInBetween(@TempDir Path directory)
            throws Exception {
        try (InProcessGargamel gargamel = new InProcessGargamel(
                        "gargamel", "psi", accounts.servers.jdbcUrls(), 2, AccountsReplicas.rules(directory, false));
                Gate gate = new Gate(7)) {
            CompletableFuture<CallOutcome> audit = gargamel.client.submit(ProcedureCall.of("audit", 7));
            int replica = gate.awaitWaiter();
            CallOutcome deposited = gargamel.client.submit(deposit(7, "5.00")).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.COMMITTED, deposited.status(), deposited.toString());
            Await.until(
                    "the deposit visible on the audit's replica " + replica,
                    Duration.ofSeconds(TIMEOUT_SECONDS),
                    () -> "105.00".equals(accounts.balance(replica, 7)));
            gate.open();
            CallOutcome audited = audit.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.COMMITTED, audited.status(), audited.toString());
            assertEquals("100.00 105.00", audited.result(), "the audit's two reads straddle the deposit");
            gargamel.client.awaitQuiescence(Duration.ofSeconds(TIMEOUT_SECONDS));
            assertNodesUp(gargamel, true);
        }
        accounts.assertConverged();
        assertEquals("105.00", accounts.balance(0, 7));
    }

    private static ProcedureCall deposit(int id, String amount) {
        return ProcedureCall.of("deposit", id, new BigDecimal(amount));
    }

    private static void assertNodesUp(InProcessGargamel gargamel, boolean scheduled) {
        for (NodeServer node : gargamel.nodes) {
            assertFalse(
                    node.failure().isDone(),
                    node.name() + " stopped: " + node.failure().getNow(null));
            assertEquals(0, node.statistics().failedCalls(), node.name() + " failed calls");
        }
        if (scheduled) {
            assertEquals(
                    0,
                    gargamel.sum(org.gargamel.node.NodeStatistics::retries),
                    "no serialization failure or deadlock where the scheduler orders conflicting calls");
        }
    }

    /**
     * Transfers between the two halves of the accounts, {@code inFlight} at a time, submitted by a thread of their own
     * until stopped. Money only moves: the total stays.
     */
    private static final class Transfers {
        private final GargamelClient client;
        private final Semaphore slots;
        private final AtomicLong committed = new AtomicLong();
        private final ConcurrentLinkedQueue<CompletableFuture<CallOutcome>> sent = new ConcurrentLinkedQueue<>();
        private final Thread thread;
        private volatile boolean stopping;

        Transfers(GargamelClient client, int inFlight) {
            this.client = client;
            this.slots = new Semaphore(inFlight);
            this.thread = new Thread(this::run, "transfers");
            thread.start();
        }

        long committed() {
            return committed.get();
        }

        /** Waits until more than {@code count} transfers committed: the reads interleave with commits. */
        void awaitCommitsBeyond(long count) throws InterruptedException {
            Await.until(
                    "a transfer to commit",
                    Duration.ofSeconds(TIMEOUT_SECONDS),
                    () -> committed.get() > count,
                    () -> committed.get() + " committed; " + sent.size() + " sent");
        }

        private void run() {
            SplittableRandom random = new SplittableRandom(14);
            try {
                while (!stopping) {
                    if (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    int low = 1 + random.nextInt(20);
                    int high = 21 + random.nextInt(20);
                    boolean up = random.nextBoolean();
                    CompletableFuture<CallOutcome> future = client.submit(
                            ProcedureCall.of("transfer", up ? low : high, up ? high : low, new BigDecimal("1.00")));
                    sent.add(future);
                    Futures.whenDone(future, (outcome, failure) -> {
                        if (outcome != null && outcome.status() == CallOutcome.Status.COMMITTED) {
                            committed.incrementAndGet();
                        }
                        slots.release();
                    });
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void stop() throws InterruptedException {
            stopping = true;
            thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
            assertFalse(thread.isAlive(), "the transfers' thread did not stop");
        }

        /** After {@link #stop}: waits for every transfer's outcome; each must be COMMITTED. */
        void assertEveryOneCommitted() throws Exception {
            Map<CallOutcome.Status, Long> statuses = new TreeMap<>();
            for (CompletableFuture<CallOutcome> future : sent) {
                CallOutcome outcome = future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                statuses.merge(outcome.status(), 1L, Long::sum);
            }
            assertEquals(Map.of(CallOutcome.Status.COMMITTED, (long) sent.size()), statuses, "transfers' outcomes");
        }
    }

    /**
     * Advisory lock {@code key} held exclusively on every replica: audit(key) waits for it between its two reads
     * (accounts-schema.sql), so the test decides what commits in between.
     */
    private static final class Gate implements AutoCloseable {
        private final int key;
        private final List<Connection> connections = new ArrayList<>();

        Gate(int key) throws SQLException {
            this.key = key;
            try {
                for (int replica = 0; replica < AccountsReplicas.REPLICAS; replica++) {
                    Connection connection = accounts.servers.connect(replica);
                    connections.add(connection);
                    execute(connection, "SELECT pg_advisory_lock(" + key + ")");
                }
            } catch (SQLException | RuntimeException e) {
                close();
                throw e;
            }
        }

        /** Waits until a call waits for the lock; returns the replica it runs on. */
        int awaitWaiter() throws InterruptedException {
            int[] found = {-1};
            Await.until("a call waiting for advisory lock " + key, Duration.ofSeconds(TIMEOUT_SECONDS), () -> {
                for (int replica = 0; replica < connections.size(); replica++) {
                    if (waiters(replica) > 0) {
                        found[0] = replica;
                        return true;
                    }
                }
                return false;
            });
            return found[0];
        }

        private int waiters(int replica) {
            try (Statement statement = connections.get(replica).createStatement();
                    ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                            + " AND NOT granted AND objid = " + key)) {
                rows.next();
                return rows.getInt(1);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read pg_locks of replica " + replica, e);
            }
        }

        void open() throws SQLException {
            for (Connection connection : connections) {
                execute(connection, "SELECT pg_advisory_unlock(" + key + ")");
            }
        }

        private static void execute(Connection connection, String sql) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }

        @Override
        public void close() throws SQLException {
            for (Connection connection : connections) {
                connection.close(); // a session's advisory locks go with it
            }
        }
    }
}
