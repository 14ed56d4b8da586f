package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.gargamel.node.transfer.SchemaDigest;
import org.gargamel.node.writeset.ReplicaState;
import org.jgroups.JChannel;
import org.jgroups.protocols.raft.RaftLeaderException;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The write-set log (a Raft group of the nodes) as the nodes use it: a call is acknowledged only once a majority of
 * the replicas hold its write-set; an origin's PSI write-sets apply in its commit order even when the log holds them
 * the other way round; a restarted node replays its own log, takes what it missed from the others, and serves again
 * only then, with nothing applied twice. The third member, node-3, is a bare log member driven by the test.
 */
@Tag("integration")
class WriteSetLogTest {
    private static final long TIMEOUT = 30_000;
    private static final List<String> MEMBERS = List.of("node-1", "node-2", "node-3");
    private static BankReplicas cluster;
    private JChannel thirdChannel;
    private RaftHandle third;

    @TempDir
    Path directory;

    @BeforeAll
    static void startServers() {
        cluster = new BankReplicas();
    }

    @AfterAll
    static void stopServers() {
        cluster.close();
    }

    @BeforeEach
    void reset() throws Exception {
        cluster.reset();
    }

    @AfterEach
    void stop() {
        cluster.stopNodes();
        if (thirdChannel != null) {
            thirdChannel.close();
        }
    }

    /** node-3: a member of the log that applies nothing. */
    private void startThirdMember() throws Exception {
        thirdChannel = Channels.writeSetLog(
                GroupConfig.inMemory(), "node-3", new RaftSettings("node-3", MEMBERS, null, false));
        third = new RaftHandle(thirdChannel, new StateMachine() {
            @Override
            public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
                return null;
            }

            @Override
            public void readContentFrom(java.io.DataInput in) {}

            @Override
            public void writeContentTo(java.io.DataOutput out) {}
        });
        thirdChannel.connect(Channels.WRITE_SET_CLUSTER);
    }

    /** Starts node-3 (a bare log member) and the two nodes, and waits until both announced themselves. */
    private FakeScheduler startWithThirdMember(NodeServer first, NodeServer second) throws Exception {
        startThirdMember();
        cluster.nodes.add(first);
        cluster.nodes.add(second);
        BankReplicas.startAll(cluster.nodes);
        FakeScheduler scheduler = cluster.scheduler;
        Await.until("both nodes announced", Duration.ofSeconds(20), () -> scheduler.hellos.size() == 2);
        return scheduler;
    }

    private NodeServer node(int index, String dataDir) {
        return node(index, dataDir, Isolation.PSI);
    }

    private NodeServer node(int index, String dataDir, Isolation isolation) {
        return new NodeServer(config(index, dataDir, isolation));
    }

    private static NodeConfig config(int index, String dataDir, Isolation isolation) {
        GroupSettings inMemory = GroupSettings.inMemory();
        return NodeConfig.builder()
                .name(BankReplicas.NODES.get(index))
                .jdbcUrl(cluster.servers.jdbcUrls().get(index))
                .workers(2)
                .mode(Mode.GARGAMEL)
                .isolation(isolation)
                .rules(BankReplicas.rules())
                .control(inMemory)
                .writeSets(inMemory)
                .replicas(MEMBERS)
                .dataDir(dataDir, false)
                .build();
    }

    private static ProcedureCall payment(int w, int d, String amount) {
        return ProcedureCall.of("payment", w, d, new BigDecimal(amount));
    }

    private static String ytd(int server, int w, int d) throws Exception {
        return cluster.district(server, w, d).split(" ", -1)[1];
    }

    /**
     * PSI commits at the origin at once, but its client hears COMMITTED only when a majority holds the write-set: with
     * node-2 gone and node-3 not yet started, node-1 alone has the commit in its database and no answer; once node-3
     * joins the log, the answer comes.
     */
    @Test
    void aCallIsAcknowledgedOnlyOnceAMajorityOfTheReplicasHoldsItsWriteSet() throws Exception {
        FakeScheduler scheduler = startWithThirdMember(node(0, null), node(1, null));
        scheduler.execute("node-1", 0, 1, new long[0], payment(1, 1, "1.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(1, TIMEOUT).status());

        cluster.nodes.remove(1).close(); // node-2 leaves
        thirdChannel.close(); // and node-3: node-1 is alone, no majority
        scheduler.execute("node-1", 0, 2, new long[] {1}, payment(1, 1, "2.00"));
        Await.until(
                "node-1 committed transaction 2 in its own database",
                Duration.ofSeconds(20),
                () -> ytdOrNull(0).equals("3.00"));
        // The fence: node-1 itself holds the answer until the entry is committed; an answer sent before that (or by a
        // path that bypassed the hold) leaves nothing held, and this wait fails.
        Await.until(
                "node-1 to hold transaction 2's answer until a majority holds its write-set",
                Duration.ofSeconds(20),
                () -> cluster.nodes.get(0).holdsAnswerUntilItsEntry(2));
        assertEquals(null, scheduler.outcomesByTxn.get(2L), "no COMMITTED before a majority holds the write-set");
        // Asked which of 1 and 2 are visible there (a scheduler that counts it after it forgot reports), node-1 names
        // 1 only: 2 is visible in its database, but reported only once the log holds it (ControlMessages).
        int reportsBefore = scheduler.reports.size();
        scheduler.askVisible("node-1", 1, 2);
        Await.until(
                "node-1's answer",
                Duration.ofSeconds(20),
                () -> scheduler.reports.stream().skip(reportsBefore).anyMatch(p -> contains(p.visible(), 1)));
        assertTrue(
                scheduler.reports.stream().noneMatch(p -> contains(p.visible(), 2)),
                "transaction 2 reported before the log holds it: " + scheduler.reports);

        startThirdMember(); // node-1 and node-3: a majority again
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(2, TIMEOUT).status());
        assertFalse(cluster.nodes.get(0).failure().isDone(), "node-1 waited, it did not give up");
    }

    /**
     * node-1 was taken for departed (the control group lost it, the log did not): the log settles its transaction 5 as
     * abandoned before node-1 even runs it. PSI then commits 5 in node-1's database, and its entry comes after the
     * decision: every replica discards it. node-1 now holds what no other does: it stops rather than serve, and its
     * client hears nothing from it (the scheduler runs the call again elsewhere). Its database is marked, and its next
     * start rebuilds it from node-2's copy, at node-2's position in the log, before it serves again.
     */
    @Test
    void aPsiTransactionCommittedAfterTheLogAbandonedItStopsItsNodeWhichIsRebuiltFromAPeer() throws Exception {
        FakeScheduler scheduler = startWithThirdMember(node(0, null), node(1, null));
        scheduler.execute("node-2", 0, 4, new long[0], payment(1, 3, "4.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(4, TIMEOUT).status());
        scheduler.abandon("node-2", "node-1", 5);
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {4, 5}, TIMEOUT);

        scheduler.execute("node-1", 0, 5, new long[0], payment(1, 2, "5.00"));
        Throwable reason = cluster.nodes.get(0).failure().get(TIMEOUT, TimeUnit.MILLISECONDS);
        assertTrue(String.valueOf(reason.getMessage()).contains("settled it as abandoned"), String.valueOf(reason));
        assertEquals(0, scheduler.outcomeCount(5), "no answer from a node whose commit the cluster discarded");
        assertEquals("0.00", ytd(1, 1, 2), "node-2 discarded the write-set");
        assertEquals("5.00", ytd(0, 1, 2), "node-1 holds what node-2 does not");
        assertFalse(cluster.nodes.get(1).failure().isDone(), "node-2 goes on");

        // Started again (with node-2's database to copy): rebuilt, caught up, serving.
        restartNode1FromNode2();
        assertEquals("0.00", ytd(0, 1, 2), "the abandoned transaction is gone from node-1");
        assertEquals("4.00", ytd(0, 1, 3), "node-2's transaction came with the copy");
        scheduler.execute("node-1", 0, 6, new long[0], payment(1, 2, "6.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(6, TIMEOUT).status());
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {6}, TIMEOUT);
        assertEquals(cluster.dump(0), cluster.dump(1), "node-1 and node-2 identical");
    }

    /**
     * A partition that cuts node-1 off cuts it off its database too: PostgreSQL may commit transaction 5 while the
     * answer is held back for seconds (or the COMMIT goes out once the link is back), and meanwhile the log settles 5
     * as abandoned (node-1 was taken for departed). Here a row lock held by the test stands for the held-back answer:
     * node-1's worker runs 5, which it will commit unasked, and waits. node-1 must count 5 as committed and taint
     * itself at the ABANDON. It used to settle 5 as done with no effect, and its worker's commit landed unseen: the
     * next entry touching what 5 wrote then failed to apply, and the node stopped for good instead of being rebuilt (a
     * chaos run, partition kind: a delivery's DELETE of new orders touched 0 rows). Started again with a peer, it is
     * rebuilt without 5.
     */
    @Test
    void aPsiCommitInDoubtWhenTheLogAbandonsItsTransactionTaintsItsNode() throws Exception {
        FakeScheduler scheduler = startWithThirdMember(node(0, null), node(1, null));
        try (Connection blocker = cluster.servers.connect(0);
                Statement statement = blocker.createStatement()) {
            blocker.setAutoCommit(false);
            statement.execute("SELECT ytd FROM district WHERE w_id = 1 AND d_id = 2 FOR UPDATE");
            scheduler.execute("node-1", 0, 5, new long[0], payment(1, 2, "5.00"));
            Await.until(
                    "node-1's worker to wait for the answer to its pipeline",
                    Duration.ofSeconds(20),
                    () -> lockWaiters(0) == 1);
            scheduler.abandon("node-2", "node-1", 5);

            Throwable reason = cluster.nodes.get(0).failure().get(TIMEOUT, TimeUnit.MILLISECONDS);
            String message = String.valueOf(reason.getMessage());
            assertTrue(message.contains("may have committed transaction 5"), String.valueOf(reason));
            assertTrue(message.contains("settled it as abandoned"), String.valueOf(reason));
            try (Connection replica = cluster.servers.connect(0)) {
                assertTrue(ReplicaState.tainted(replica) != null, "node-1's database is marked for a rebuild");
            }
            blocker.rollback(); // the answer comes: 5 commits in node-1's database
        }
        scheduler.awaitVisibleEverywhere(List.of("node-2"), new long[] {5}, TIMEOUT);
        assertEquals(0, scheduler.outcomeCount(5), "no answer from a node whose commit the cluster discarded");
        assertFalse(cluster.nodes.get(1).failure().isDone(), "node-2 goes on");

        restartNode1FromNode2(); // copies node-2 to node-1, never the other way
        assertEquals("0.00", ytd(1, 1, 2), "node-2 holds nothing of 5");
        assertEquals("0.00", ytd(0, 1, 2), "the abandoned transaction is gone from node-1");
        assertEquals(cluster.dump(0), cluster.dump(1), "node-1 and node-2 identical");
    }

    /**
     * The same under SI: the worker of node-1 waits for its entry, the log settles the transaction as abandoned
     * first, and the worker rolls back without answering (it used to wait forever); node-1 goes on serving, with
     * nothing of it anywhere.
     */
    @Test
    void anSiTransactionTheLogAbandonedIsRolledBackWithoutAnAnswerAndItsNodeGoesOn() throws Exception {
        FakeScheduler scheduler = startWithThirdMember(node(0, null, Isolation.SI), node(1, null, Isolation.SI));
        scheduler.abandon("node-2", "node-1", 5);
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {5}, TIMEOUT);

        scheduler.execute("node-1", 0, 5, new long[0], payment(1, 2, "5.00"));
        scheduler.execute("node-1", 0, 6, new long[0], payment(1, 2, "6.00")); // same worker: runs after 5 is over
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(6, TIMEOUT).status());
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {6}, TIMEOUT);
        assertEquals(0, scheduler.outcomeCount(5), "the abandoned call gets no answer from node-1");
        for (int server = 0; server < 2; server++) {
            assertEquals("6.00", ytd(server, 1, 2), "only transaction 6, replica " + server);
        }
        assertFalse(cluster.nodes.get(0).failure().isDone(), "node-1 holds nothing the others do not");
    }

    private static String ytdOrNull(int server) {
        try {
            return ytd(server, 1, 1);
        } catch (Exception e) {
            return "";
        }
    }

    /**
     * An origin's PSI write-sets carry their place in its commit order. The log takes the delete of an order before
     * the insert of that order (a leader change between two appends could do that): every replica still applies the
     * insert first, the delete second, and goes on with the entries after them meanwhile.
     */
    @Test
    void anOriginsWriteSetsApplyInItsCommitOrderWhateverOrderTheLogHoldsThemIn() throws Exception {
        startThirdMember();
        cluster.startNodes(Mode.GARGAMEL, Isolation.PSI, null, MEMBERS);
        String row = "{\"o_w_id\": 3, \"o_d_id\": 3, \"o_id\": 1}";
        WriteSet insert = new WriteSet(
                101,
                "node-3",
                "new_order",
                new long[0],
                -1,
                new WriteSet.Order(9, 1, -1),
                List.of(new RowChange(
                        "orders",
                        Operation.INSERT,
                        "{\"o_w_id\": 3, \"o_d_id\": 3, \"o_id\": 1, \"note\": \"first\"}")));
        WriteSet delete = new WriteSet(
                102,
                "node-3",
                "cancel",
                new long[0],
                -1,
                new WriteSet.Order(9, 2, 1),
                List.of(new RowChange("orders", Operation.DELETE, row)));
        WriteSet unordered = new WriteSet(
                103,
                "node-3",
                "payment",
                new long[0],
                -1,
                List.of(new RowChange("district", Operation.UPDATE, "{\"w_id\": 2, \"d_id\": 9, \"ytd\": 5.00}")));
        append(delete);
        append(unordered);
        cluster.scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {103}, TIMEOUT);
        assertFalse(isVisibleSomewhere(102), "the delete waits for the insert it follows");
        append(insert);
        cluster.scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {101, 102}, TIMEOUT);
        for (int server = 0; server < 2; server++) {
            assertEquals(0, count(server, "SELECT count(*) FROM orders WHERE o_w_id = 3"), "inserted, then deleted");
            assertEquals("5.00", ytd(server, 2, 9));
        }
        for (NodeServer node : cluster.nodes) {
            assertFalse(
                    node.failure().isDone(), node.name() + ": " + node.failure().getNow(null));
        }
        cluster.assertConverged();
    }

    /**
     * An append not committed within 3 s is sent again (RaftLog), so the log may hold a write-set twice, however far
     * apart. Here node-3's end of the log stamps an insert, then 65,536 empty write-sets, each sent once the one before
     * was committed (their watermarks say so), then the insert's copy, then a fence. Both replicas ignore the copy and
     * hold the order once. Recognised by a window of the latest 65,536 write-sets, the copy was applied again: the
     * insert failed with a duplicate key and both nodes stopped (MetWriteSets).
     */
    @Test
    void aCopyOfAWriteSetFarBehindItsFirstIsIgnoredByEveryReplica() throws Exception {
        startThirdMember();
        cluster.startNodes(Mode.GARGAMEL, Isolation.PSI, null, MEMBERS);
        long incarnation = 77;
        WriteSet insert = new WriteSet(
                        1,
                        "node-3",
                        "new_order",
                        new long[0],
                        -1,
                        List.of(new RowChange(
                                "orders",
                                Operation.INSERT,
                                "{\"o_w_id\": 4, \"o_d_id\": 4, \"o_id\": 1, \"note\": \"once\"}")))
                .withAppend(new WriteSet.Append(incarnation, 1, 1));
        append(insert);
        int between = 65_536;
        List<byte[]> fillers = new java.util.ArrayList<>(between);
        for (int i = 0; i < between; i++) {
            long sequence = 2L + i;
            fillers.add(WireCodec.encode(new WriteSet(1_000 + i, "node-3", "payment", new long[0], -1, List.of())
                    .withAppend(new WriteSet.Append(incarnation, sequence, sequence))));
        }
        appendAll(fillers);
        append(insert); // the copy: the same bytes, sent again
        WriteSet fence = new WriteSet(
                        2,
                        "node-3",
                        "new_order",
                        new long[0],
                        -1,
                        List.of(new RowChange(
                                "orders",
                                Operation.INSERT,
                                "{\"o_w_id\": 4, \"o_d_id\": 4, \"o_id\": 2, \"note\": \"fence\"}")))
                .withAppend(new WriteSet.Append(incarnation, between + 2, between + 2));
        append(fence);
        Await.until(
                "the fence applied on both replicas, or a node stopped",
                Duration.ofMinutes(2),
                () -> (fenceApplied(0) && fenceApplied(1))
                        || cluster.nodes.stream()
                                .anyMatch(node -> node.failure().isDone()));
        for (NodeServer node : cluster.nodes) {
            assertFalse(
                    node.failure().isDone(), node.name() + ": " + node.failure().getNow(null));
        }
        for (int server = 0; server < 2; server++) {
            assertEquals(2, count(server, "SELECT count(*) FROM orders WHERE o_w_id = 4"), "the order once, the fence");
        }
        cluster.assertConverged();
    }

    private boolean isVisibleSomewhere(long txn) {
        return cluster.scheduler.visible.values().stream().anyMatch(ids -> ids.contains(txn));
    }

    /**
     * node-1 keeps its log on disk and stops; node-2 goes on with node-3; node-1 started again replays its own log,
     * takes the entries it missed from the others, announces itself only then, and both replicas hold every order
     * exactly once (an insert applied twice would fail: nothing is applied twice); then it serves calls again.
     */
    @Test
    void aRestartedNodeCatchesUpFromItsLogAndTheOthersBeforeItServes() throws Exception {
        String dataDir = directory.resolve("node-1").toString();
        FakeScheduler scheduler = startWithThirdMember(node(0, dataDir), node(1, null));
        for (long txn = 1; txn <= 6; txn++) {
            scheduler.execute(
                    BankReplicas.NODES.get((int) (txn % 2)),
                    0,
                    txn,
                    txn == 1 ? new long[0] : new long[] {txn - 1},
                    newOrder(1, 7, "before-" + txn));
        }
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(6, TIMEOUT).status());
        cluster.nodes.remove(0).close();
        scheduler.hellos.remove("node-1");
        for (long txn = 7; txn <= 12; txn++) {
            scheduler.execute("node-2", 0, txn, new long[] {txn - 1}, newOrder(1, 7, "while-away-" + txn));
        }
        assertEquals(
                CallOutcome.Status.COMMITTED,
                scheduler.awaitOutcome(12, TIMEOUT).status());
        assertEquals(12, orders(1), "node-2 holds every order");
        assertEquals(6, orders(0), "node-1's replica is behind while it is away");

        NodeServer restarted = node(0, dataDir);
        cluster.nodes.add(restarted);
        restarted.start();
        Await.until("node-1 announced again", Duration.ofSeconds(20), () -> scheduler.hellos.containsKey("node-1"));
        assertEquals(12, orders(0), "caught up before it announced, every order once");
        scheduler.execute("node-1", 0, 13, new long[] {12}, newOrder(1, 7, "after"));
        assertEquals(
                CallOutcome.Status.COMMITTED,
                scheduler.awaitOutcome(13, TIMEOUT).status());
        assertEquals("13", scheduler.outcomesByTxn.get(13L).result(), "the restarted replica took the next order id");
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {13}, TIMEOUT);
        assertEquals(13, orders(0));
        assertEquals(13, orders(1));
        for (NodeServer node : cluster.nodes) {
            assertFalse(
                    node.failure().isDone(), node.name() + ": " + node.failure().getNow(null));
        }
        cluster.assertConverged();
        assertTrue(count(0, "SELECT applied_index FROM gargamel.replica_state") > 0, "node-1 records its position");
    }

    /**
     * After a partition, a restarted node may find no majority of the log for longer than one append waits (the
     * groups merge slowly). A node that is not serving yet answers nobody, so it must keep waiting for a majority
     * rather than stop for good: here node-1 restarts alone, outlasts the log's (shortened) waits several times over,
     * and once node-3 is back it catches up, announces itself and serves.
     */
    @Test
    void aRestartedNodeWithNoMajorityWaitsForOneInsteadOfStopping() throws Exception {
        String dataDir = directory.resolve("node-1").toString();
        FakeScheduler scheduler = startWithThirdMember(node(0, dataDir), node(1, null));
        for (long txn = 1; txn <= 3; txn++) {
            scheduler.execute(
                    "node-1", 0, txn, txn == 1 ? new long[0] : new long[] {txn - 1}, newOrder(1, 7, "o" + txn));
        }
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(3, TIMEOUT).status());
        cluster.nodes.remove(1).close();
        cluster.nodes.remove(0).close();
        thirdChannel.close(); // every member of the log is gone
        scheduler.hellos.clear();

        RaftLog.Patience impatient =
                new RaftLog.Patience(Duration.ofMillis(500), Duration.ofMillis(300), Duration.ofSeconds(1));
        NodeServer restarted = new NodeServer(config(0, dataDir, Isolation.PSI), impatient, Duration.ofMillis(200));
        cluster.nodes.add(restarted);
        ListAppender<ILoggingEvent> warnings = watchWarnings();
        CompletableFuture<Void> start = startAsync(restarted);
        // Several of the log's waits (each given up after 500 ms) pass with no majority: the node says every 200 ms
        // that it waits, 2 s in all, rather than stop (a start that ended instead is the failure checked below).
        try {
            Await.until(
                    "node-1 to say ten times that it waits for the log to take its catch-up mark",
                    Duration.ofSeconds(30),
                    () -> waits(warnings, "the catch-up mark", "") >= 10 || start.isDone(),
                    () -> "start " + start + ", failure " + restarted.failure());
        } finally {
            stopWatching(warnings);
        }
        assertFalse(start.isDone(), "node-1 is still catching up, not stopped: " + start);
        assertFalse(restarted.failure().isDone(), "node-1 did not fail");
        assertFalse(scheduler.hellos.containsKey("node-1"), "node-1 does not serve before it caught up");

        startThirdMember(); // node-1 and node-3: a majority again
        start.get(TIMEOUT, TimeUnit.MILLISECONDS);
        Await.until("node-1 announced again", Duration.ofSeconds(20), () -> scheduler.hellos.containsKey("node-1"));
        scheduler.execute("node-1", 0, 4, new long[] {3}, newOrder(1, 7, "after"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(4, TIMEOUT).status());
        assertEquals(4, orders(0), "every order once on node-1");
        assertFalse(
                restarted.failure().isDone(), "node-1: " + restarted.failure().getNow(null));
    }

    /**
     * Issue 43: a node cut off by a partition is rebuilt from a peer (its replica was tainted) while the write-set log
     * has no majority in its sight, and appends its catch-up mark then. The log's own wait for a leader is longer than
     * this test (60 s), yet the node says every 200 ms (10 s outside tests) that it waits, and why: no leader known. It
     * does not stop and does not serve; once node-3 is back (a majority) the log takes its mark and it serves.
     */
    @Test
    void aNodeRebuiltDuringAPartitionWaitsForALeaderSayingSoUntilOneTakesItsCatchUpMark() throws Exception {
        String dataDir = directory.resolve("node-1").toString();
        FakeScheduler scheduler = startWithThirdMember(node(0, dataDir), node(1, null));
        for (long txn = 1; txn <= 3; txn++) {
            scheduler.execute(
                    "node-2", 0, txn, txn == 1 ? new long[0] : new long[] {txn - 1}, newOrder(1, 7, "o" + txn));
        }
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(3, TIMEOUT).status());
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {1, 2, 3}, TIMEOUT);
        cluster.nodes.remove(0).close();
        try (Connection connection = cluster.servers.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute("UPDATE district SET ytd = 99.00 WHERE w_id = 1 AND d_id = 2"); // only node-1 holds it
            statement.execute("UPDATE gargamel.replica_state SET tainted = 'a test: cut off, it committed what the"
                    + " log abandoned'");
        }
        cluster.nodes.remove(0).close(); // node-2: with node-3 gone too, no majority of the log in node-1's sight
        thirdChannel.close();
        scheduler.hellos.clear();

        RaftLog.Patience longerThanTheTest =
                new RaftLog.Patience(Duration.ofSeconds(60), Duration.ofSeconds(3), Duration.ofSeconds(120));
        NodeServer rebuilt = new NodeServer(
                config(0, dataDir, Isolation.PSI).toBuilder()
                        .peers(List.of(cluster.servers.jdbcUrls().get(1)))
                        .build(),
                longerThanTheTest,
                Duration.ofMillis(200));
        cluster.nodes.add(rebuilt);
        ListAppender<ILoggingEvent> warnings = watchWarnings();
        CompletableFuture<Void> start = startAsync(rebuilt);
        try {
            Await.until(
                    "node-1 to say three times that it waits for a leader to take its catch-up mark",
                    Duration.ofSeconds(30),
                    () -> waits(warnings, "the catch-up mark", "no leader") >= 3 || start.isDone(),
                    () -> "start " + start + ", failure " + rebuilt.failure());
        } finally {
            stopWatching(warnings);
        }
        assertFalse(start.isDone(), "node-1 is still waiting, not stopped: " + start);
        assertFalse(rebuilt.failure().isDone(), "node-1 did not fail");
        assertFalse(scheduler.hellos.containsKey("node-1"), "node-1 does not serve before the log took its mark");
        assertEquals("0.00", ytd(0, 1, 2), "node-1 was rebuilt from node-2's copy before it waited");

        startThirdMember(); // the partition heals: node-1 and node-3 are a majority
        start.get(TIMEOUT, TimeUnit.MILLISECONDS);
        Await.until("node-1 announced again", Duration.ofSeconds(20), () -> scheduler.hellos.containsKey("node-1"));
        scheduler.execute("node-1", 0, 4, new long[] {3}, newOrder(1, 7, "after"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(4, TIMEOUT).status());
        assertEquals(4, orders(0), "every order once on node-1");
        assertFalse(rebuilt.failure().isDone(), "node-1: " + rebuilt.failure().getNow(null));
    }

    /**
     * Issue 43: a node joining the scheduler (counted, not yet ready: its join waits for the DRAIN_QUERY's answer) is
     * handed an ABANDON while the write-set log has no majority. A serving node stops when the log cannot take an
     * entry; this one, serving nothing, used to stop too once its append gave up ("no leader of the write-set log for
     * the ABANDON ..."). It now appends again until the log takes the decision, saying so, and serves once node-3 is
     * back; the decision is applied.
     */
    @Test
    void aJoiningNodeHandedAnAbandonWithNoMajorityWaitsForOneInsteadOfStopping() throws Exception {
        startThirdMember();
        FakeScheduler scheduler = cluster.scheduler;
        scheduler.holdDrains();
        RaftLog.Patience impatient =
                new RaftLog.Patience(Duration.ofMillis(500), Duration.ofMillis(300), Duration.ofSeconds(1));
        NodeServer joining = new NodeServer(config(0, null, Isolation.PSI), impatient, Duration.ofMillis(200));
        cluster.nodes.add(joining);
        joining.start(); // caught up with node-3's help; its join of the scheduler waits for the answer
        Await.until(
                "node-1 counted at the scheduler, not ready",
                Duration.ofSeconds(20),
                () -> Boolean.FALSE.equals(scheduler.ready.get("node-1")));
        thirdChannel.close(); // no majority of the log now

        ListAppender<ILoggingEvent> warnings = watchWarnings();
        try {
            scheduler.abandon("node-1", "node-2", 5);
            Await.until(
                    "node-1 to say three times that it waits for the log to take the ABANDON",
                    Duration.ofSeconds(30),
                    () -> waits(warnings, "ABANDON", "") >= 3
                            || joining.failure().isDone(),
                    () -> "failure " + joining.failure());
        } finally {
            stopWatching(warnings);
        }
        assertFalse(
                joining.failure().isDone(),
                "node-1 did not stop: " + joining.failure().getNow(null));
        assertFalse(scheduler.ready.get("node-1"), "node-1 does not serve yet");

        startThirdMember(); // a majority again
        scheduler.answerDrains();
        Await.until("node-1 ready", Duration.ofSeconds(20), () -> Boolean.TRUE.equals(scheduler.ready.get("node-1")));
        scheduler.awaitVisibleEverywhere(List.of("node-1"), new long[] {5}, TIMEOUT); // the decision was applied
        scheduler.execute("node-1", 0, 6, new long[] {5}, payment(1, 2, "6.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(6, TIMEOUT).status());
        assertFalse(joining.failure().isDone(), "node-1: " + joining.failure().getNow(null));
    }

    private static CompletableFuture<Void> startAsync(NodeServer node) {
        return CompletableFuture.runAsync(() -> {
            try {
                node.start();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
    }

    private static ListAppender<ILoggingEvent> watchWarnings() {
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        ((Logger) LoggerFactory.getLogger("org.gargamel.node")).addAppender(warnings);
        return warnings;
    }

    private static void stopWatching(ListAppender<ILoggingEvent> warnings) {
        ((Logger) LoggerFactory.getLogger("org.gargamel.node")).detachAppender(warnings);
    }

    /** The WARN lines of a node not serving that waits for the log to take an entry naming {@code what}. */
    private static long waits(ListAppender<ILoggingEvent> logged, String what, String why) {
        synchronized (logged) { // ListAppender appends under its own monitor
            return logged.list.stream()
                    .filter(event -> event.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage)
                    .filter(line -> line.contains("not serving, waiting for the write-set log to take")
                            && line.contains(what)
                            && line.contains(why))
                    .count();
        }
    }

    /**
     * A node whose write-set log is on disk and forced (fsync) commits without waiting for PostgreSQL's WAL flush: the
     * log, held by a majority, is what makes an acknowledged call durable (docs/node.md, Durability). A node whose log
     * is not forced keeps the server's own setting (on), since its database is then the only copy on disk.
     */
    @Test
    void aNodeWithADurableLogCommitsWithoutWaitingForTheWalFlushAndOneWithoutDoesNot() throws Exception {
        // The embedded servers run with synchronous_commit off; make the databases' default PostgreSQL's own (on).
        databaseDefault(0, "SET synchronous_commit = on");
        databaseDefault(1, "SET synchronous_commit = on");
        try {
            durableAndUnforcedLogs();
        } finally {
            databaseDefault(0, "RESET synchronous_commit");
            databaseDefault(1, "RESET synchronous_commit");
        }
    }

    private static void databaseDefault(int server, String change) throws Exception {
        try (Connection connection = cluster.servers.connect(server);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I " + change + "', current_database()); END $$");
        }
    }

    private void durableAndUnforcedLogs() throws Exception {
        FakeScheduler scheduler = startWithThirdMember(
                new NodeServer(config(0, directory.resolve("durable").toString(), Isolation.PSI).toBuilder()
                        .dataDir(directory.resolve("durable").toString(), true)
                        .build()),
                node(1, directory.resolve("unforced").toString()));
        // A read-only call runs on a worker's own connection, whose setting this is.
        ProcedureCall setting = ProcedureCall.of("read_setting", "synchronous_commit");
        scheduler.execute("node-1", 0, 1, new long[0], true, setting);
        scheduler.execute("node-2", 0, 2, new long[0], true, setting);
        CallOutcome durable = scheduler.awaitOutcome(1, TIMEOUT);
        CallOutcome unforced = scheduler.awaitOutcome(2, TIMEOUT);
        assertTrue(durable.result().contains("off"), "node-1, log forced to disk: " + durable);
        assertTrue(unforced.result().contains("on"), "node-2, log not forced: " + unforced);
    }

    /**
     * node-1's machine lost its disk: its PostgreSQL comes back empty (no table, no function, no gargamel schema),
     * with the same node name and configuration. Started with node-2's database among its peers, it takes node-2's
     * schema and data, at node-2's position in the log, catches up with what it missed, and serves: a new call commits
     * there and both replicas hold the same rows and the same schema.
     */
    @Test
    void anEmptyReplicaTakesTheSchemaAndTheDataFromAPeerBeforeItServes() throws Exception {
        FakeScheduler scheduler = startWithThirdMember(node(0, null), node(1, null));
        for (long txn = 1; txn <= 4; txn++) {
            scheduler.execute(
                    BankReplicas.NODES.get((int) (txn % 2)),
                    0,
                    txn,
                    txn == 1 ? new long[0] : new long[] {txn - 1},
                    newOrder(1, 7, "before-" + txn));
        }
        scheduler.execute("node-2", 1, 5, new long[0], payment(2, 3, "5.00"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(4, TIMEOUT).status());
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(5, TIMEOUT).status());
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {4, 5}, TIMEOUT);
        cluster.nodes.remove(0).close();
        scheduler.hellos.remove("node-1");
        scheduler.execute("node-2", 0, 6, new long[] {4}, newOrder(1, 7, "while-away"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(6, TIMEOUT).status());
        try (Connection connection = cluster.servers.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "DROP SCHEMA public CASCADE; CREATE SCHEMA public; DROP SCHEMA IF EXISTS gargamel CASCADE");
        }

        NodeServer fresh = new NodeServer(config(0, null, Isolation.PSI).toBuilder()
                .peers(List.of(cluster.servers.jdbcUrls().get(1)))
                .build());
        cluster.nodes.add(fresh);
        fresh.start();

        Await.until("node-1 announced again", Duration.ofSeconds(20), () -> scheduler.hellos.containsKey("node-1"));
        assertEquals(5, orders(0), "node-2's orders came with the copy, each once");
        assertEquals("5.00", ytd(0, 2, 3));
        scheduler.execute("node-1", 0, 7, new long[] {6}, newOrder(1, 7, "after"));
        assertEquals(
                CallOutcome.Status.COMMITTED, scheduler.awaitOutcome(7, TIMEOUT).status());
        assertEquals("6", scheduler.outcomesByTxn.get(7L).result(), "the new replica took the next order id");
        scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {7}, TIMEOUT);
        assertEquals(cluster.dump(0), cluster.dump(1), "node-1 and node-2 identical");
        assertEquals(schemaDigest(1), schemaDigest(0), "the same schema");
        assertTrue(
                count(0, "SELECT count(*) FROM pg_trigger WHERE tgname = 'gargamel_capture'") >= 2,
                "capture installed on the copied tables");
        for (NodeServer node : cluster.nodes) {
            assertFalse(
                    node.failure().isDone(), node.name() + ": " + node.failure().getNow(null));
        }
    }

    /** The same empty database with no peers to copy from: the node does not start, and says what to do. */
    @Test
    void anEmptyReplicaWithNoPeersRefusesToStartAndNamesPeers() throws Exception {
        try (Connection connection = cluster.servers.connect(0);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "DROP SCHEMA public CASCADE; CREATE SCHEMA public; DROP SCHEMA IF EXISTS gargamel CASCADE");
        }
        NodeServer empty = node(0, null);
        cluster.nodes.add(empty);

        Exception refused = assertThrows(Exception.class, empty::start);

        String message = String.valueOf(refused.getMessage());
        assertTrue(message.contains("no tables in schema public"), message);
        assertTrue(message.contains("'peers'"), message);
        assertTrue(message.contains("tpcc load"), message);
    }

    private static String schemaDigest(int server) throws Exception {
        try (Connection connection = cluster.servers.connect(server)) {
            return SchemaDigest.of(connection, "public");
        }
    }

    private static int orders(int server) throws Exception {
        return count(server, "SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 7");
    }

    private static ProcedureCall newOrder(int w, int d, String note) {
        return ProcedureCall.of("new_order", w, d, note);
    }

    /** Appends {@code message} through node-3 and waits until it is committed. */
    private void append(Message message) throws Exception {
        byte[] entry = WireCodec.encode(message);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            try {
                third.setAsync(entry, 0, entry.length).get(20, TimeUnit.SECONDS);
                return;
            } catch (RaftLeaderException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20); // an election: nothing was sent
            }
        }
    }

    /** Sessions of replica {@code server} waiting for a lock. */
    private static int lockWaiters(int server) {
        try {
            return count(server, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean fenceApplied(int server) {
        try {
            return count(server, "SELECT count(*) FROM orders WHERE o_w_id = 4 AND o_id = 2") == 1;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Appends {@code entries} through node-3, a thousand in flight at most, and waits until all are committed. */
    private void appendAll(List<byte[]> entries) throws Exception {
        int inFlight = 1_000;
        for (int start = 0; start < entries.size(); start += inFlight) {
            List<CompletableFuture<byte[]>> sent = new java.util.ArrayList<>(inFlight);
            for (byte[] entry : entries.subList(start, Math.min(entries.size(), start + inFlight))) {
                sent.add(third.setAsync(entry, 0, entry.length));
            }
            for (CompletableFuture<byte[]> one : sent) {
                one.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static int count(int server, String query) throws Exception {
        try (Connection connection = cluster.servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(query)) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static boolean contains(long[] ids, long id) {
        return java.util.Arrays.stream(ids).anyMatch(x -> x == id);
    }

    /** Closes node-1 and starts it again with node-2's database to copy: rebuilt if it is tainted, then serving. */
    private void restartNode1FromNode2() throws Exception {
        cluster.nodes.remove(0).close();
        NodeServer rebuilt = new NodeServer(config(0, null, Isolation.PSI).toBuilder()
                .peers(List.of(cluster.servers.jdbcUrls().get(1)))
                .build());
        cluster.nodes.add(rebuilt);
        rebuilt.start();
    }
}
