package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.Settlement;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.ViewId;
import org.jgroups.raft.RaftHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two NodeServers on two embedded PostgreSQL replicas, driven by {@link FakeScheduler} over the in-memory control
 * group: column-disjoint updates of one row on two replicas and two workers, a procedure error mid-chain, a call
 * waiting for a remote write-set, SI, and round-robin certification. Every test ends with identical replicas.
 */
@Tag("integration")
class NodeServerTest {
    private static final long TIMEOUT = 20_000;
    private static final List<String> NODES = BankReplicas.NODES;
    private static BankReplicas cluster;
    private FakeScheduler scheduler;
    private List<NodeServer> nodes;

    @BeforeAll
    static void startServers() {
        cluster = new BankReplicas();
    }

    @AfterAll
    static void stopServers() {
        cluster.close();
    }

    @BeforeEach
    void schema() throws Exception {
        cluster.reset();
        scheduler = cluster.scheduler;
        nodes = cluster.nodes;
    }

    @AfterEach
    void stop() {
        cluster.stopNodes();
    }

    private void startNodes(String mode, String isolation) throws Exception {
        startNodes(mode, isolation, null);
    }

    private void startNodes(String mode, String isolation, Path statsDirectory) throws Exception {
        cluster.startNodes(Mode.parse(mode), Isolation.parse(isolation), statsDirectory);
    }

    private static ProcedureCall newOrder(int w, int d, String note) {
        return ProcedureCall.of("new_order", w, d, note);
    }

    private static ProcedureCall payment(int w, int d, String amount) {
        return ProcedureCall.of("payment", w, d, new BigDecimal(amount));
    }

    private static long[] deps(long... ids) {
        return ids;
    }

    private static long[] range(long from, long to) {
        return LongStream.rangeClosed(from, to).toArray();
    }

    private static String district(int server, int w, int d) throws Exception {
        return cluster.district(server, w, d);
    }

    private void assertConverged() throws Exception {
        cluster.assertConverged();
    }

    /** How many sessions of replica {@code server} match {@code condition} (pg_stat_activity, client backends). */
    private static int sessions(int server, String condition) {
        try (Connection connection = cluster.servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                        + "'client backend' AND " + condition)) {
            rows.next();
            return rows.getInt(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A write-set log member that applies nothing (the departed node of the test above). */
    private static final class IgnoringStateMachine implements org.jgroups.raft.StateMachine {
        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            return null;
        }

        @Override
        public void readContentFrom(java.io.DataInput in) {}

        @Override
        public void writeContentTo(java.io.DataOutput out) {}
    }

    /** Appends {@code message} to the write-set log through {@code member} and waits until it is committed. */
    private static void append(RaftHandle member, org.gargamel.common.wire.Message message) throws Exception {
        byte[] entry = WireCodec.encode(message);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            try {
                member.setAsync(entry, 0, entry.length).get(20, java.util.concurrent.TimeUnit.SECONDS);
                return;
            } catch (org.jgroups.protocols.raft.RaftLeaderException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20); // an election: nothing was sent
            }
        }
    }

    private long retries() {
        return nodes.stream().mapToLong(n -> n.statistics().retries()).sum();
    }

    /**
     * Every NODE_HELLO carries what the scheduler checks (docs/protocol.md, Membership): the same profile from both
     * replicas of one schema; a refused node stops with the scheduler's reason rather than wait unused.
     */
    @Test
    void nodesStateTheirProfileAndStopWhenRefused() throws Exception {
        startNodes("gargamel", "si");
        Await.until("both profiles", Duration.ofSeconds(10), () -> scheduler.profiles.size() == 2);
        ClusterProfile first = scheduler.profiles.get("node-1");
        assertEquals(first, scheduler.profiles.get("node-2"), "one schema, one set of rules");
        assertEquals(Mode.GARGAMEL, first.mode());
        assertEquals(Isolation.SI, first.isolation());
        assertEquals(ClassifierRules.load(Path.of(BankReplicas.rules())).digest(), first.rulesDigest());
        assertTrue(first.schemaDigest().matches("[0-9a-f]{16}"), first.schemaDigest());
        assertFalse(nodes.get(1).failure().isDone());
        scheduler.refuse("node-2", "its configuration differs from the cluster's: mode gargamel (test)");
        Throwable failure = nodes.get(1).failure().get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertInstanceOf(ConfigException.class, failure);
        assertEquals(
                "node-2 was refused by the scheduler: its configuration differs from the cluster's: mode gargamel (test)",
                failure.getMessage());
        assertFalse(nodes.get(0).failure().isDone(), "the other node goes on");
    }

    /**
     * Fencing: a node whose PostgreSQL drops every connection (as a crash or restart of the server does) stops within
     * seconds even with no call running, with a failure that says it lost its database (what {@code gargamel node}
     * waits out and starts again from); the other node goes on.
     */
    @Test
    void aNodeThatLosesItsDatabaseStopsAtOnceAndSaysWhy() throws Exception {
        startNodes("gargamel", "psi");
        scheduler.execute("node-2", 0, 1, deps(), payment(1, 1, "1.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(1, TIMEOUT).status());
        try (Connection connection = cluster.servers.connect(1);
                Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client "
                    + "backend' AND pid <> pg_backend_pid()");
        }
        Throwable failure = nodes.get(1).failure().get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(NodeServer.lostItsDatabase(failure), failure.toString());
        assertTrue(failure.getMessage().contains("node-2"), failure.getMessage());
        assertFalse(nodes.get(0).failure().isDone(), "the other node goes on");
        assertFalse(NodeServer.lostItsDatabase(new ConfigException("node-2 was refused by the scheduler")));
        scheduler.execute("node-1", 0, 2, deps(1), payment(1, 1, "2.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(2, TIMEOUT).status());
    }

    /**
     * A node ends the sessions an earlier life of it left open on its database before it reads anything (EarlierSessions:
     * a COMMIT held back by a partition could land after a rebuild): a session named as its pool's are, idle in a
     * transaction, is gone once the node has started; the node's own sessions carry that name, so that its next life
     * finds them.
     */
    @Test
    void aStartingNodeEndsTheSessionsItsEarlierLifeLeftOpen() throws Exception {
        java.util.Properties login = new java.util.Properties();
        login.setProperty("ApplicationName", EarlierSessions.applicationName("node-2"));
        try (Connection admin = cluster.servers.connect(1);
                Statement statement = admin.createStatement()) {
            statement.execute("DROP ROLE IF EXISTS impostor");
            statement.execute("CREATE ROLE impostor LOGIN PASSWORD 'impostor'");
        }
        java.util.Properties impostorLogin = new java.util.Properties();
        impostorLogin.putAll(login);
        impostorLogin.setProperty("user", "impostor");
        impostorLogin.setProperty("password", "impostor");
        String url = cluster.servers.jdbcUrl(1).replaceAll("[?&]user=[^&]*", "");
        try (Connection earlier = java.sql.DriverManager.getConnection(cluster.servers.jdbcUrl(1), login);
                Statement statement = earlier.createStatement();
                Connection impostor = java.sql.DriverManager.getConnection(url, impostorLogin)) {
            earlier.setAutoCommit(false);
            statement.execute("SELECT 1"); // idle in a transaction, as a worker whose COMMIT has not arrived
            startNodes("gargamel", "psi");
            assertFalse(earlier.isValid(5), "the earlier life's session was ended before node-2 started");
            assertTrue(impostor.isValid(5), "another role's session that took node-2's name is not node-2's");
        }
        try (Connection connection = cluster.servers.connect(1);
                Statement statement = connection.createStatement();
                java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE "
                        + "application_name = '" + EarlierSessions.applicationName("node-2") + "'")) {
            rows.next();
            assertTrue(rows.getInt(1) > 0, "node-2's own sessions carry the name its next life looks for");
        }
        scheduler.execute("node-2", 0, 1, deps(), payment(1, 1, "1.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(1, TIMEOUT).status());
    }

    /**
     * A merge brings back a scheduler the log superseded while it was cut off, and lists the members sorted by address
     * (docs/protocol.md, Scheduler failover). Wherever it stands in the view, after the active scheduler or before it,
     * the nodes tell it SUPERSEDED at the next view, and they follow the active one: they join it and report to it (a
     * node that reported to the old one would leave the active one's transactions in flight for ever).
     */
    @Test
    void aSupersededSchedulerIsToldWhereverItStandsInTheViewAndTheNodesFollowTheActiveOne() throws Exception {
        startNodes("gargamel", "psi");
        try (FakeScheduler later = new FakeScheduler();
                FakeScheduler latest = new FakeScheduler();
                JChannel prober =
                        Channels.control(GroupConfig.inMemory(), GargamelClient.CLIENT_NAME_PREFIX + "prober")) {
            // The log makes the later one active, then the first one: the later one is superseded, after the active
            // one.
            later.takeOver(2);
            long second = scheduler.takeOver(2);
            prober.connect(Channels.CONTROL_CLUSTER); // a view change
            Await.until(
                    "both nodes told the superseded scheduler after the active one",
                    Duration.ofSeconds(10),
                    () -> later.supersededBy.size() == 2);
            assertEquals(second, later.supersededBy.get("node-1"));
            assertTrue(scheduler.supersededBy.isEmpty(), "the active one is not told anything");

            // Now the latest one takes over: the superseded first one stands first in the view.
            long third = latest.takeOver(2);
            prober.disconnect(); // a view change
            Await.until(
                    "both nodes told the superseded scheduler first in the view",
                    Duration.ofSeconds(10),
                    () -> scheduler.supersededBy.size() == 2);
            assertEquals(third, scheduler.supersededBy.get("node-1"));
            Await.until(
                    "both nodes joined the active scheduler",
                    Duration.ofSeconds(20),
                    () -> latest.hellos.keySet().equals(Set.of("node-1", "node-2")));
            long txn = org.gargamel.common.wire.TransactionIds.firstOf(third);
            latest.execute("node-1", 0, txn, deps(), payment(1, 1, "5.00"));
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    latest.awaitOutcome(txn, TIMEOUT).status());
            Await.until(
                    "both nodes reported it to the active scheduler",
                    Duration.ofSeconds(10),
                    () -> latest.visible.getOrDefault("node-1", Set.of()).contains(txn)
                            && latest.visible.getOrDefault("node-2", Set.of()).contains(txn));
            assertConverged();
        }
    }

    /**
     * Scheduler failover at the nodes (docs/protocol.md): a claim committed in the log makes a scheduler active with its
     * epoch; when a second one takes over, a call of the first that had not started (it waits for a dependency whose
     * EXECUTE died with its scheduler) is dropped, never run; the client's resubmission of a call that already ran is
     * answered with the first run's outcome and changes nothing twice; the replicas converge.
     */
    @Test
    void aNewSchedulersEpochDropsTheOldCallsNotStartedAndAResubmittedCallDoesNotRunTwice() throws Exception {
        startNodes("gargamel", "psi");
        long first = scheduler.takeOver(2);
        assertEquals(java.util.Map.of("node-1", first, "node-2", first), scheduler.grants, "one epoch, both nodes");
        long t1 = org.gargamel.common.wire.TransactionIds.firstOf(first);
        scheduler.execute("node-1", 0, t1, deps(), payment(1, 1, "5.00"));
        CallOutcome ran = scheduler.awaitOutcome(t1, TIMEOUT);
        assertEquals(CallOutcome.Status.COMMITTED, ran.status());
        scheduler.execute("node-2", 0, t1 + 2, deps(t1 + 1), payment(1, 2, "7.00")); // t1 + 1 never comes
        try (FakeScheduler next = new FakeScheduler()) {
            long second = next.takeOver(2);
            assertTrue(second > first, second + " after " + first);
            Await.until(
                    "node-2 dropped the old call",
                    Duration.ofSeconds(10),
                    () -> nodes.get(1).statistics().droppedStaleCalls() == 1);
            // The client (the first scheduler's address here) resubmits call 1, which ran; the new scheduler places
            // it on node-2.
            long t2 = org.gargamel.common.wire.TransactionIds.firstOf(second);
            next.executeFor(scheduler.address(), ran.callId(), "node-2", 0, t2, payment(1, 1, "5.00"));
            // The answer is the first run's outcome itself (transaction t1's), which the client matches by call id.
            Await.until(
                    "the second answer to call " + ran.callId(),
                    Duration.ofSeconds(20),
                    () -> scheduler.outcomeCount(t1) == 2);
            assertEquals(ran, scheduler.outcomesByTxn.get(t1), "the first run's outcome");
            assertEquals(1, nodes.get(1).statistics().answeredFromEarlierRuns());
            // node-2 answered from t1's entry, which it had applied: both replicas hold the one payment.
            for (int server = 0; server < 2; server++) {
                assertEquals("1 5.00", district(server, 1, 1), "paid once, on replica " + server);
                assertEquals("1 0.00", district(server, 1, 2), "the dropped call never ran, on replica " + server);
            }
            assertTrue(!scheduler.outcomesByTxn.containsKey(t1 + 2), "no outcome for the dropped call");
            // The old scheduler sent nothing since, unless node-2 met its last call only after the takeover (a slow
            // machine): then node-2 rightly told it that it was superseded.
            assertTrue(
                    scheduler.supersededBy.isEmpty()
                            || scheduler.supersededBy.equals(java.util.Map.of("node-2", second)),
                    "the old scheduler sent nothing since: " + scheduler.supersededBy);
            // The old scheduler, alive after all (it was cut off), places one more call: the node drops it and tells
            // it that the log made another scheduler active, at which epoch.
            scheduler.execute("node-1", 0, t1 + 3, deps(), payment(1, 3, "9.00"));
            Await.until(
                    "node-1 told the old scheduler it was superseded",
                    Duration.ofSeconds(10),
                    () -> scheduler.supersededBy.containsKey("node-1"));
            assertEquals(second, scheduler.supersededBy.get("node-1"));
            assertTrue(next.supersededBy.isEmpty(), "the active scheduler is not told anything");
            Await.until(
                    "node-1 dropped it",
                    Duration.ofSeconds(10),
                    () -> nodes.get(0).statistics().droppedStaleCalls() == 1);
            assertConverged();
        }
    }

    /** DESIGN.md §3: New-Order and Payment of one district at once, on two replicas and on two workers of one. */
    @Test
    void newOrderAndPaymentOfOneDistrictOnTwoReplicasAndTwoWorkers() throws Exception {
        startNodes("gargamel", "psi");
        // district 1/1: New-Order on node-1, Payment on node-2, at the same time (no dependency between them)
        scheduler.execute("node-1", 0, 1, deps(), newOrder(1, 1, "a"));
        scheduler.execute("node-2", 0, 2, deps(), payment(1, 1, "10.50"));
        // district 1/2: New-Order and Payment on two workers of node-1
        scheduler.execute("node-1", 1, 3, deps(), payment(1, 2, "7.25"));
        scheduler.execute("node-1", 0, 4, deps(), newOrder(1, 2, "b"));
        // and once more each, chained after their own kind
        scheduler.execute("node-2", 1, 5, deps(1), newOrder(1, 1, "c"));
        scheduler.execute("node-1", 1, 6, deps(2), payment(1, 1, "0.50"));
        for (long txn = 1; txn <= 6; txn++) {
            CallOutcome outcome = scheduler.awaitOutcome(txn, TIMEOUT);
            assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), "transaction " + txn + ": " + outcome);
        }
        scheduler.awaitVisibleEverywhere(NODES, range(1, 6), TIMEOUT);
        for (int server = 0; server < 2; server++) {
            assertEquals("3 11.00", district(server, 1, 1), "district 1/1 on replica " + server);
            assertEquals("2 7.25", district(server, 1, 2), "district 1/2 on replica " + server);
        }
        assertConverged();
        assertEquals(0, retries(), "no serialization failure or deadlock retried");
        assertEquals(
                0,
                nodes.stream().mapToLong(n -> n.statistics().conflictAborts()).sum());
    }

    /**
     * A random stream of New-Orders and Payments on three districts, chained per (district, kind) as the TPC-C
     * rules chain them, placed on random workers of both replicas: no retry, no abort, and every increment lands.
     */
    @Test
    void randomColumnDisjointStreamConvergesWithoutRetries() throws Exception {
        startNodes("gargamel", "psi");
        java.util.Random random = new java.util.Random(42);
        long[][] last = new long[3][2];
        int[] orders = new int[3];
        int[] cents = new int[3];
        int calls = 60;
        for (long txn = 1; txn <= calls; txn++) {
            int d = random.nextInt(3);
            int kind = random.nextInt(2);
            long[] dependencies = last[d][kind] == 0 ? deps() : deps(last[d][kind]);
            last[d][kind] = txn;
            String node = NODES.get(random.nextInt(2));
            int worker = random.nextInt(2);
            if (kind == 0) {
                orders[d]++;
                scheduler.execute(node, worker, txn, dependencies, newOrder(2, 5 + d, "r" + txn));
            } else {
                cents[d] += 125;
                scheduler.execute(node, worker, txn, dependencies, payment(2, 5 + d, "1.25"));
            }
        }
        for (long txn = 1; txn <= calls; txn++) {
            CallOutcome outcome = scheduler.awaitOutcome(txn, 60_000);
            assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), "transaction " + txn + ": " + outcome);
        }
        scheduler.awaitVisibleEverywhere(NODES, range(1, calls), TIMEOUT);
        for (int server = 0; server < 2; server++) {
            for (int d = 0; d < 3; d++) {
                assertEquals(
                        (orders[d] + 1) + " " + new BigDecimal(cents[d]).movePointLeft(2),
                        district(server, 2, 5 + d),
                        "district 2/" + (5 + d) + " on replica " + server);
            }
        }
        assertConverged();
        assertEquals(0, retries(), "no serialization failure or deadlock retried");
    }

    /**
     * Apply groups (docs/node.md): write-sets that queue up while the applier waits are applied together in one
     * transaction; a group whose statement meets a row held by a local session gives way after
     * {@code ApplyLoop.GROUP_LOCK_TIMEOUT_MILLIS} (rolled back, its write-sets applied one by one), so that session,
     * which here then asks for a row the group may hold, is never the one aborted. Every write-set is applied once.
     */
    @Test
    void writeSetsQueuedBehindALockAreAppliedInGroupsAndAGroupGivesWayToALocalSession() throws Exception {
        startNodes("gargamel", "psi");
        NodeServer behind = nodes.get(1);
        try (Connection first = cluster.servers.connect(1);
                Connection second = cluster.servers.connect(1)) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            // Phase 1: node-2's applier waits alone for district 2/1; seven write-sets queue behind it.
            lockDistrict(first, 2, 1);
            scheduler.execute("node-1", 0, 1, deps(), ProcedureCall.of("quick_payment", 2, 1, new BigDecimal("1")));
            scheduler.awaitOutcome(1, TIMEOUT);
            awaitApplierWaitingForALock();
            for (long txn = 2; txn <= 8; txn++) {
                scheduler.execute(
                        "node-1",
                        (int) txn % 2,
                        txn,
                        deps(),
                        ProcedureCall.of("quick_payment", 1, (int) txn, new BigDecimal("2")));
            }
            for (long txn = 2; txn <= 8; txn++) {
                assertEquals(
                        CallOutcome.Status.COMMITTED,
                        scheduler.awaitOutcome(txn, TIMEOUT).status());
            }
            awaitDeliveryAtFollower();
            first.commit();
            scheduler.awaitVisibleEverywhere(NODES, range(1, 8), TIMEOUT);
            assertTrue(behind.statistics().applyGroupCount() >= 1, "the queued write-sets were applied one by one");
            assertEquals(0, behind.statistics().groupsGaveWayCount());

            // Phase 2: a group of 2/3 and 2/2 meets district 2/2 held by a local session, which then asks for 2/3.
            lockDistrict(first, 2, 1);
            scheduler.execute("node-1", 0, 9, deps(), ProcedureCall.of("quick_payment", 2, 1, new BigDecimal("1")));
            scheduler.awaitOutcome(9, TIMEOUT);
            awaitApplierWaitingForALock();
            lockDistrict(second, 2, 2);
            scheduler.execute("node-1", 0, 10, deps(), ProcedureCall.of("quick_payment", 2, 3, new BigDecimal("3")));
            scheduler.execute("node-1", 1, 11, deps(), ProcedureCall.of("quick_payment", 2, 2, new BigDecimal("4")));
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(10, TIMEOUT).status());
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(11, TIMEOUT).status());
            awaitDeliveryAtFollower();
            first.commit();
            // The group takes 2/3 and waits for 2/2. A group that waited for ever would have checked for a deadlock
            // after deadlock_timeout (1 s) and found none; asked for 2/3 after that, this session would close the
            // cycle and be the one PostgreSQL aborts (40P01) when its own check comes. The group gives way first.
            Thread.sleep(1_200);
            try (Statement statement = second.createStatement()) {
                assertEquals(1, statement.executeUpdate("UPDATE district SET ytd = ytd WHERE w_id = 2 AND d_id = 3"));
            }
            Await.until(
                    "the group to give way",
                    Duration.ofSeconds(10),
                    () -> behind.statistics().groupsGaveWayCount() >= 1);
            second.commit();
        }
        scheduler.awaitVisibleEverywhere(NODES, range(1, 11), TIMEOUT);
        assertEquals("1 2.00", district(1, 2, 1));
        assertEquals("1 4.00", district(1, 2, 2));
        assertEquals("1 3.00", district(1, 2, 3));
        assertConverged();
        assertEquals(0, retries());
    }

    private static void lockDistrict(Connection session, int w, int d) throws java.sql.SQLException {
        try (Statement statement = session.createStatement()) {
            statement.execute("SELECT 1 FROM district WHERE w_id = " + w + " AND d_id = " + d + " FOR UPDATE");
        }
    }

    /**
     * An outcome comes once the log committed the write-set; if node-1 leads the log, node-2 learns of the commit only
     * with the leader's next message and only then hands the entry to its applier's queue. Waits until node-2 knows
     * every entry committed that node-1 (whose answers came) knows of.
     */
    private void awaitDeliveryAtFollower() throws InterruptedException {
        long committed = nodes.get(0).writeSetLogCommitIndex();
        Await.until(
                "node-2 to learn that the log committed up to entry " + committed,
                Duration.ofSeconds(10),
                () -> nodes.get(1).writeSetLogCommitIndex() >= committed);
    }

    private static void awaitApplierWaitingForALock() throws InterruptedException {
        Await.until(
                "node-2's applier waiting for a row lock",
                Duration.ofSeconds(10),
                () -> sessions(1, "wait_event_type = 'Lock'") >= 1);
    }

    /** An invalid-item error in the middle of a chain: USER_ABORTED with its SQLSTATE, and the chain goes on. */
    @Test
    void procedureErrorMidChainDoesNotStallAndRemoteDependencyIsAwaited() throws Exception {
        startNodes("gargamel", "psi");
        // node-2's call depends on the end of node-1's chain: it must wait for that write-set to be applied there
        scheduler.execute("node-2", 0, 4, deps(3), newOrder(2, 1, "after-chain"));
        scheduler.execute("node-1", 0, 1, deps(), newOrder(2, 1, "first"));
        scheduler.execute("node-1", 0, 2, deps(1), newOrder(2, 1, "invalid"));
        scheduler.execute("node-1", 0, 3, deps(2), newOrder(2, 1, "third"));
        assertEquals("1", scheduler.awaitOutcome(1, TIMEOUT).result());
        CallOutcome aborted = scheduler.awaitOutcome(2, TIMEOUT);
        assertEquals(CallOutcome.Status.USER_ABORTED, aborted.status());
        assertEquals("GA001", aborted.sqlState());
        assertTrue(aborted.message().contains("invalid item"), aborted.message());
        assertEquals("2", scheduler.awaitOutcome(3, TIMEOUT).result());
        // on node-2, the call saw node-1's chain applied: it takes the next order id, 3
        assertEquals("3", scheduler.awaitOutcome(4, TIMEOUT).result());
        scheduler.awaitVisibleEverywhere(NODES, range(1, 4), TIMEOUT);
        assertEquals("4 0.00", district(0, 2, 1));
        assertConverged();
        // read-only: executes, replies, reports progress, and sees the chain
        scheduler.execute("node-2", 1, 5, deps(4), true, ProcedureCall.of("read_district", 2, 1));
        assertEquals("(4,0.00)", scheduler.awaitOutcome(5, TIMEOUT).result());
        scheduler.awaitVisibleEverywhere(List.of("node-2"), range(5, 5), TIMEOUT);
        scheduler.execute("node-2", 1, 6, deps(), true, ProcedureCall.of("read_isolation", 1));
        assertEquals(
                "repeatable read",
                scheduler.awaitOutcome(6, TIMEOUT).result(),
                "a read-only call reads one snapshot in PSI too: a REPEATABLE READ transaction of its own");
    }

    /**
     * Multi-site (docs/multisite.md): a provisional call commits only once the schedule log placed it. Stall: it ran
     * and waits, its transaction open, until confirmed. Kill: it ran against a district another site's call (placed
     * first by the log) had not yet written; when told it collided it is rolled back and runs again after that call,
     * taking the next order id. Cancel: told before it started, it stops waiting for its provisional dependency and
     * runs after the agreed one. Every outcome once; the replicas converge.
     */
    @Test
    void provisionalCallsCommitOnlyWhereTheScheduleLogPlacedThem() throws Exception {
        startNodes("gargamel", "psi");
        NodeStatistics statistics = nodes.get(0).statistics();
        scheduler.executeProvisional("node-1", 0, 1, deps(), newOrder(2, 1, "stalls"));
        Await.until("txn 1 to stall", Duration.ofMillis(TIMEOUT), () -> statistics.stalledCount() == 1);
        assertEquals(0, scheduler.outcomeCount(1), "no answer before the log placed it");
        scheduler.agree("node-1", 1, false);
        assertEquals("1", scheduler.awaitOutcome(1, TIMEOUT).result());

        // Kill: txn 3 runs at node-1 before txn 2 (the log's first, another site's) is applied there.
        scheduler.executeProvisional("node-1", 0, 3, deps(1), newOrder(2, 1, "killed"));
        Await.until("txn 3 to stall", Duration.ofMillis(TIMEOUT), () -> statistics.stalledCount() == 2);
        scheduler.execute("node-2", 0, 2, deps(1), newOrder(2, 1, "first by the log"));
        assertEquals("2", scheduler.awaitOutcome(2, TIMEOUT).result());
        scheduler.agree("node-1", 3, true, 2);
        assertEquals("3", scheduler.awaitOutcome(3, TIMEOUT).result(), "run again after txn 2: the next order id");
        assertEquals(1, statistics.killedCount());

        // Cancel: txn 5 waits for txn 4, which never comes; the log placed it after txn 3 instead.
        scheduler.executeProvisional("node-1", 1, 5, deps(4), newOrder(2, 1, "cancelled"));
        scheduler.agree("node-1", 5, true, 3);
        assertEquals("4", scheduler.awaitOutcome(5, TIMEOUT).result());
        assertEquals(1, statistics.cancelledCount());
        assertEquals(1, statistics.killedCount());

        scheduler.awaitVisibleEverywhere(NODES, deps(1, 2, 3, 5), TIMEOUT);
        for (long txn : deps(1, 2, 3, 5)) {
            assertEquals(1, scheduler.outcomeCount(txn), "one outcome for " + txn);
        }
        assertEquals("5 0.00", district(0, 2, 1));
        assertConverged();
        assertEquals(0, retries());
    }

    /** SI: commits follow the total order; chains across both replicas converge with no retry. */
    @Test
    void siChainsAcrossReplicasConverge() throws Exception {
        startNodes("gargamel", "si");
        long txn = 1;
        long previous = 0;
        for (int i = 0; i < 10; i++) {
            // one chain on district 1/3 alternating between replicas (row overlap: chained), and
            // independent payments of other districts on the other worker
            String node = NODES.get(i % 2);
            scheduler.execute(node, 0, txn, previous == 0 ? deps() : deps(previous), newOrder(1, 3, "si" + i));
            previous = txn++;
            scheduler.execute(node, 1, txn++, deps(), payment(2, 1 + i, "1.00"));
        }
        for (long t = 1; t < txn; t++) {
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(t, TIMEOUT).status(),
                    "transaction " + t);
        }
        scheduler.awaitVisibleEverywhere(NODES, range(1, txn - 1), TIMEOUT);
        assertEquals("11 0.00", district(0, 1, 3));
        assertConverged();
        assertEquals(0, retries());
        // a read-only call reads one snapshot in SI: its procedure runs in a REPEATABLE READ transaction of its own
        scheduler.execute("node-1", 0, txn, deps(), true, ProcedureCall.of("read_isolation", 1));
        assertEquals("repeatable read", scheduler.awaitOutcome(txn, TIMEOUT).result());
    }

    /**
     * SI: a local transaction commits only after every write-set delivered before its own is applied (commit order =
     * total order). node-1's applier is held up by a row lock on the row of node-2's earlier write-set; node-1's own
     * later call on another row must not commit (nor reply) until that write-set is applied. PSI commits at once.
     */
    @Test
    void siCommitsInTotalOrderPsiDoesNotWait() throws Exception {
        for (String isolation : List.of("si", "psi")) {
            startNodes("gargamel", isolation);
            long base = isolation.equals("si") ? 0 : 10;
            int d = isolation.equals("si") ? 9 : 10;
            try (Connection blocker = cluster.servers.connect(0);
                    Statement statement = blocker.createStatement()) {
                blocker.setAutoCommit(false);
                statement.execute("SELECT * FROM district WHERE w_id = 1 AND d_id = " + d + " FOR UPDATE");
                scheduler.execute("node-2", 0, base + 1, deps(), payment(1, d, "5.00"));
                assertEquals(
                        CallOutcome.Status.COMMITTED,
                        scheduler.awaitOutcome(base + 1, TIMEOUT).status());
                // node-2's write-set reaches node-1, whose applier now waits for the lock
                Await.until(
                        "node-1's applier waiting for the row lock",
                        Duration.ofSeconds(20),
                        () -> sessions(0, "wait_event_type = 'Lock'") == 1);
                scheduler.execute("node-1", 0, base + 2, deps(), newOrder(1, 8, isolation + "-later"));
                if (isolation.equals("si")) {
                    // the later call has run and holds its transaction open, waiting for its turn in the total order
                    Await.until(
                            "node-1's later call executed and waiting",
                            Duration.ofSeconds(20),
                            () -> sessions(0, "state = 'idle in transaction' AND pid <> pg_backend_pid()") == 2);
                    assertEquals(
                            null,
                            scheduler.outcomesByTxn.get(base + 2),
                            "SI: the later transaction must wait for the earlier write-set's apply");
                    try (Connection check = cluster.servers.connect(0);
                            Statement query = check.createStatement();
                            ResultSet rows =
                                    query.executeQuery("SELECT count(*) FROM orders WHERE note = 'si-later'")) {
                        rows.next();
                        assertEquals(0, rows.getInt(1), "SI: not committed before the earlier write-set");
                    }
                } else {
                    assertEquals(
                            CallOutcome.Status.COMMITTED,
                            scheduler.awaitOutcome(base + 2, TIMEOUT).status(),
                            "PSI: commits at once");
                }
                blocker.rollback();
            }
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(base + 2, TIMEOUT).status());
            scheduler.awaitVisibleEverywhere(NODES, range(base + 1, base + 2), TIMEOUT);
            assertConverged();
            assertEquals("1 5.00", district(0, 1, d));
            cluster.stopNodes();
            cluster.scheduler = new FakeScheduler();
            scheduler = cluster.scheduler;
        }
    }

    /**
     * A node left before reporting transaction 1, on which calls at both survivors depend. The scheduler's ABANDON,
     * broadcast by each survivor, settles it in the total order: its dependents run, a write-set of the departed node
     * delivered before the decision stays applied, and one delivered after it is discarded at every replica alike.
     */
    @Test
    void aDepartedNodesUnreportedTransactionsAreSettledInTotalOrder() throws Exception {
        // node-3 is a member of the write-set log that appends entries by hand, as the departed node did.
        List<String> members = List.of("node-1", "node-2", "node-3");
        JChannel departedChannel = Channels.writeSetLog(
                GroupConfig.inMemory(), "node-3", new RaftSettings("node-3", members, null, false));
        RaftHandle departed = new RaftHandle(departedChannel, new IgnoringStateMachine());
        departedChannel.connect(Channels.WRITE_SET_CLUSTER);
        cluster.startNodes(Mode.GARGAMEL, Isolation.PSI, null, members);
        try (departedChannel) {
            scheduler.execute("node-2", 0, 2, deps(1), payment(1, 2, "7.00"));
            scheduler.execute("node-1", 0, 3, deps(1), newOrder(1, 3, "after"));
            // Transaction 4 of the departed node was delivered before the decision: it stays applied.
            append(
                    departed,
                    new WriteSet(
                                    4,
                                    "node-3",
                                    "payment",
                                    deps(),
                                    -1,
                                    List.of(new RowChange(
                                            "district",
                                            Operation.UPDATE,
                                            "{\"w_id\": 1, \"d_id\": 5, \"ytd\": 44.00}")))
                            .withOutcome(CallOutcome.committed(99, 4, "paid 44.00")));
            scheduler.awaitVisibleEverywhere(NODES, deps(4), TIMEOUT);
            // a read-only call placed after transaction 2 on node-2's other worker comes back; 2 is still waiting
            scheduler.execute("node-2", 1, 6, deps(), true, ProcedureCall.of("read_district", 1, 2));
            scheduler.awaitOutcome(6, TIMEOUT);
            assertEquals(null, scheduler.outcomesByTxn.get(2L), "transaction 2 waits for transaction 1");

            // Both survivors broadcast the decision, as the scheduler asks each of them: the first copy decides.
            scheduler.abandon("node-1", "node-3", 1, 4);
            scheduler.abandon("node-2", "node-3", 1, 4);
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(2, TIMEOUT).status());
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(3, TIMEOUT).status());
            scheduler.awaitVisibleEverywhere(NODES, range(1, 3), TIMEOUT);
            // Each survivor tells the scheduler how its log settled them, alike: 4 stands with the outcome its
            // write-set carries (its origin never answered), 1 had no effect. The second copy settles nothing.
            Await.until(
                    "a settlement from each survivor", Duration.ofSeconds(10), () -> scheduler.settlements.size() >= 2);
            for (Settlement settlement : scheduler.settlements) {
                assertEquals("node-3", settlement.origin());
                assertArrayEquals(new long[] {1}, settlement.abandoned(), settlement.toString());
                assertEquals(List.of(CallOutcome.committed(99, 4, "paid 44.00")), settlement.stood());
                assertArrayEquals(new long[0], settlement.unknown());
            }
            assertEquals(
                    Set.of("node-1", "node-2"),
                    scheduler.settlements.stream()
                            .map(Settlement::nodeName)
                            .collect(java.util.stream.Collectors.toSet()));

            // Transaction 1's write-set arrives after the decision: discarded everywhere. 5 is a barrier behind it.
            append(
                    departed,
                    new WriteSet(
                            1,
                            "node-3",
                            "payment",
                            deps(),
                            -1,
                            List.of(new RowChange(
                                    "district", Operation.UPDATE, "{\"w_id\": 1, \"d_id\": 6, \"ytd\": 11.00}"))));
            append(departed, new WriteSet(5, "node-3", "payment", deps(), -1, List.of()));
            scheduler.awaitVisibleEverywhere(NODES, deps(5), TIMEOUT);
        }
        for (int server = 0; server < 2; server++) {
            assertEquals("1 44.00", district(server, 1, 5), "applied before the decision, server " + server);
            assertEquals("1 0.00", district(server, 1, 6), "discarded after the decision, server " + server);
            assertEquals("1 7.00", district(server, 1, 2), "the dependent payment, server " + server);
        }
        assertConverged();
    }

    /**
     * The log may hold one decision more than once: every survivor appends the scheduler's ABANDON, and the scheduler
     * sends it again until it holds a settlement of each transaction (the first copy, or the settlements, may be lost).
     * Every node answers a later copy as it answered the first, even after the abandoned transaction's write-set came
     * and was discarded, and settles nothing twice. A node used to answer a later copy with nothing, so a scheduler
     * that missed the first answers never learnt how the departed node's calls ended.
     */
    @Test
    void aRepeatedAbandonIsAnsweredWithTheSettlementAlreadyReached() throws Exception {
        List<String> members = List.of("node-1", "node-2", "node-3");
        JChannel departedChannel = Channels.writeSetLog(
                GroupConfig.inMemory(), "node-3", new RaftSettings("node-3", members, null, false));
        RaftHandle departed = new RaftHandle(departedChannel, new IgnoringStateMachine());
        departedChannel.connect(Channels.WRITE_SET_CLUSTER);
        cluster.startNodes(Mode.GARGAMEL, Isolation.PSI, null, members);
        CallOutcome paid = CallOutcome.committed(99, 4, "paid 44.00");
        try (departedChannel) {
            // Transaction 4 of the departed node is in the log before the decision (it stands); 1 is not.
            append(
                    departed,
                    new WriteSet(
                                    4,
                                    "node-3",
                                    "payment",
                                    deps(),
                                    -1,
                                    List.of(new RowChange(
                                            "district",
                                            Operation.UPDATE,
                                            "{\"w_id\": 1, \"d_id\": 5, \"ytd\": 44.00}")))
                            .withOutcome(paid));
            scheduler.awaitVisibleEverywhere(NODES, deps(4), TIMEOUT);
            scheduler.abandon("node-1", "node-3", 1, 4);
            Await.until(
                    "a settlement from each node",
                    Duration.ofSeconds(10),
                    () -> settlementsBy("node-1").size() >= 1
                            && settlementsBy("node-2").size() >= 1);
            // A slow append may be sent again (RaftLog, after 3 s): each copy is answered, so count from here.
            int before1 = settlementsBy("node-1").size();
            int before2 = settlementsBy("node-2").size();
            // 1's write-set comes after the decision: discarded everywhere (5, after it, says when).
            append(
                    departed,
                    new WriteSet(
                            1,
                            "node-3",
                            "payment",
                            deps(),
                            -1,
                            List.of(new RowChange(
                                    "district", Operation.UPDATE, "{\"w_id\": 1, \"d_id\": 6, \"ytd\": 11.00}"))));
            append(departed, new WriteSet(5, "node-3", "payment", deps(), -1, List.of()));
            scheduler.awaitVisibleEverywhere(NODES, deps(5), TIMEOUT);

            // The scheduler sends the decision again, to another node: the log holds it twice.
            scheduler.abandon("node-2", "node-3", 1, 4);
            Await.until(
                    "each node's answer to the repeated decision",
                    Duration.ofSeconds(10),
                    () -> settlementsBy("node-1").size() > before1
                            && settlementsBy("node-2").size() > before2,
                    () -> scheduler.settlements.toString());
            for (String node : NODES) {
                Settlement first = new Settlement(node, "node-3", new long[] {1}, List.of(paid), new long[0]);
                List<Settlement> answers = settlementsBy(node);
                assertTrue(answers.size() >= 2, answers.toString());
                for (Settlement answer : answers) {
                    assertEquals(first, answer, "every copy answered alike by " + node);
                }
            }
        }
        for (int server = 0; server < 2; server++) {
            assertEquals("1 44.00", district(server, 1, 5), "applied once, server " + server);
            assertEquals("1 0.00", district(server, 1, 6), "discarded, server " + server);
        }
        assertConverged();
    }

    private List<Settlement> settlementsBy(String node) {
        return scheduler.settlements.stream()
                .filter(settlement -> settlement.nodeName().equals(node))
                .toList();
    }

    /**
     * A node that loses sight of the scheduler while the scheduler still counts it (views are not symmetric during a
     * merge: PartitionIT saw node-1 and node-2 in a view without the scheduler, whose own view still held node-2) goes
     * on running and applying; what became visible there meanwhile, and how its log settled a departed node's
     * transactions, reach the scheduler once it sees the scheduler again. Dropped, those reports kept the scheduler's
     * transactions in flight for ever, and the settlement the departed node's calls.
     */
    @Test
    void whatANodeReportsWhileTheSchedulerIsOutOfItsViewReachesTheSchedulerWhenItIsBack() throws Exception {
        // node-3 is a member of the write-set log that applies nothing, so that node-1 and node-2 have a departed
        // node's transaction to settle.
        List<String> members = List.of("node-1", "node-2", "node-3");
        JChannel departedChannel = Channels.writeSetLog(
                GroupConfig.inMemory(), "node-3", new RaftSettings("node-3", members, null, false));
        new RaftHandle(departedChannel, new IgnoringStateMachine()); // a log member that applies nothing
        departedChannel.connect(Channels.WRITE_SET_CLUSTER);
        cluster.startNodes(Mode.GARGAMEL, Isolation.PSI, null, members);
        try (departedChannel) {
            NodeServer node1 = nodes.get(0);
            View withScheduler = node1.controlView();
            List<Address> others = new java.util.ArrayList<>(withScheduler.getMembers());
            others.remove(scheduler.address());
            View without =
                    new View(new ViewId(others.get(0), withScheduler.getViewId().getId() + 1), others);
            node1.viewAccepted(without);

            // node-2 runs 1, which node-1 applies; node-1 runs 2 after it; the log settles 7 of node-3 as abandoned.
            scheduler.execute("node-2", 0, 1, deps(), payment(1, 1, "3.00"));
            scheduler.execute("node-1", 0, 2, deps(1), payment(1, 2, "4.00"));
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(2, TIMEOUT).status());
            scheduler.abandon("node-2", "node-3", 7);
            scheduler.awaitVisibleEverywhere(List.of("node-2"), deps(1, 2, 7), TIMEOUT);
            Await.until("node-2's settlement of transaction 7", Duration.ofSeconds(10), () -> settledBy("node-2"));
            // 3 comes after the decision in the log: once node-1 has applied it, it has settled 7 too.
            scheduler.execute("node-2", 0, 3, deps(), payment(1, 3, "5.00"));
            scheduler.awaitVisibleEverywhere(List.of("node-2"), deps(3), TIMEOUT);
            Await.until(
                    "node-1 applied 1 and 3",
                    Duration.ofSeconds(10),
                    () -> node1.statistics().applied() == 2);
            assertEquals(Set.of(), scheduler.visible.getOrDefault("node-1", Set.of()), "node-1 sees no scheduler");

            // The scheduler is back in node-1's view (a merge): it hears everything node-1 had to tell.
            node1.viewAccepted(new MergeView(
                    new ViewId(withScheduler.getCoord(), without.getViewId().getId() + 1),
                    withScheduler.getMembers(),
                    List.of(without, View.create(scheduler.address(), 1, scheduler.address()))));
            scheduler.awaitVisibleEverywhere(NODES, deps(1, 2, 3, 7), TIMEOUT);
            Await.until("node-1's settlement of transaction 7", Duration.ofSeconds(10), () -> settledBy("node-1"));
        }
        assertConverged();
    }

    /**
     * A node taken for departed while it was alive (a false suspicion, or cut off and back) settles its own committed
     * transaction too, from the same log entry as the survivors: every node, the origin included, must report the
     * outcome its write-set carries. The origin used to keep only other replicas' outcomes and reported the call as
     * unknown; its settlement could reach the scheduler first and the client heard "result unknown".
     */
    @Test
    void aNodeSettlingItsOwnCommittedTransactionReportsItsOutcome() throws Exception {
        startNodes("gargamel", "psi");
        scheduler.execute("node-1", 0, 1, deps(), payment(1, 7, "6.00"));
        CallOutcome outcome = scheduler.awaitOutcome(1, TIMEOUT);
        assertEquals(CallOutcome.Status.COMMITTED, outcome.status());
        scheduler.awaitVisibleEverywhere(NODES, deps(1), TIMEOUT);

        scheduler.abandon("node-2", "node-1", 1); // the scheduler suspected node-1 before its report came
        Await.until(
                "a settlement from each node",
                Duration.ofSeconds(10),
                () -> scheduler.settlements.stream()
                                .map(Settlement::nodeName)
                                .distinct()
                                .count()
                        == 2);
        for (Settlement settlement : scheduler.settlements) {
            assertEquals("node-1", settlement.origin());
            assertEquals(1, settlement.stood().size(), settlement.toString());
            CallOutcome stood = settlement.stood().get(0);
            assertEquals(1, stood.txnId(), settlement.toString());
            assertEquals(CallOutcome.Status.COMMITTED, stood.status(), settlement.toString());
            assertEquals(outcome.result(), stood.result(), "the outcome the origin gave, " + settlement);
            assertArrayEquals(new long[0], settlement.unknown(), settlement.toString());
            assertArrayEquals(new long[0], settlement.abandoned(), settlement.toString());
        }
        for (int server = 0; server < 2; server++) {
            assertEquals("1 6.00", district(server, 1, 7), "the payment stands, server " + server);
        }
        assertConverged();
    }

    private boolean settledBy(String node) {
        return scheduler.settlements.stream()
                .anyMatch(settlement ->
                        settlement.nodeName().equals(node) && Arrays.equals(settlement.abandoned(), new long[] {7}));
    }

    /** Round-robin: concurrent payments of one district on both replicas conflict; losers re-execute; all converge. */
    @Test
    void roundRobinCertificationAbortsAndConverges(@org.junit.jupiter.api.io.TempDir Path statsDirectory)
            throws Exception {
        startNodes("round-robin", "si", statsDirectory);
        int calls = 12;
        for (long txn = 1; txn <= calls; txn++) {
            scheduler.execute(NODES.get((int) (txn % 2)), (int) ((txn / 2) % 2), txn, deps(), payment(1, 4, "1.00"));
        }
        for (long txn = 1; txn <= calls; txn++) {
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.awaitOutcome(txn, 60_000).status(),
                    "txn " + txn);
        }
        scheduler.awaitVisibleEverywhere(NODES, range(1, calls), TIMEOUT);
        for (int server = 0; server < 2; server++) {
            assertEquals("1 12.00", district(server, 1, 4), "every payment counted once on replica " + server);
        }
        assertConverged();
        long aborts =
                nodes.stream().mapToLong(n -> n.statistics().conflictAborts()).sum();
        assertTrue(aborts > 0, "concurrent payments of one district must conflict at least once");
        for (NodeServer node : nodes) {
            node.close();
        }
        long reported = 0;
        for (String name : NODES) {
            String json = java.nio.file.Files.readString(statsDirectory.resolve(name + ".json"));
            assertTrue(json.contains("\"payment\"") && json.contains("\"applyMs\""), json);
            reported += new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(json)
                    .get("conflictAborts")
                    .asLong();
        }
        assertEquals(aborts, reported, "the stats files count the conflict aborts");
    }

    /**
     * Round-robin under contention: the applier cancels local executions again and again to make room for certified
     * write-sets. A cancel must never leak into a later statement of the worker's connection (it used to hit the
     * ROLLBACK, leaving the transaction aborted, so the next call failed with 25P02): every call commits.
     */
    @Test
    void roundRobinCancellationsNeverLeakIntoLaterStatements() throws Exception {
        startNodes("round-robin", "psi");
        int calls = 600;
        for (long txn = 1; txn <= calls; txn++) {
            int d = (int) (txn % 2) + 1;
            scheduler.execute(
                    NODES.get((int) (txn % 2)),
                    (int) ((txn / 2) % 2),
                    txn,
                    deps(),
                    ProcedureCall.of("quick_payment", 2, d, new BigDecimal("1.00")));
        }
        for (long txn = 1; txn <= calls; txn++) {
            CallOutcome outcome = scheduler.awaitOutcome(txn, 120_000);
            assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), "txn " + txn + ": " + outcome);
        }
        scheduler.awaitVisibleEverywhere(NODES, range(1, calls), TIMEOUT);
        assertConverged();
    }
}
