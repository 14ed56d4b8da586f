package org.gargamel.scheduler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.client.GargamelClientException;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.common.wire.Superseded;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.scheduler.SchedulerLoop;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.scheduler.SupersededException;
import org.gargamel.scheduler.bench.SchedulerBenchmark;
import org.jgroups.JChannel;
import org.jgroups.protocols.DELAY;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scheduler process with fake nodes and clients in one JVM, over JGroups: in memory, over TCP on 127.0.0.1, and
 * with message loss and delay injected; rejections, overload, timeouts, a node or the scheduler leaving.
 */
@Tag("cluster")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterTest {
    private static final ClientOptions OPTIONS =
            new ClientOptions(10_000, Duration.ofSeconds(30), Duration.ofSeconds(20));

    /** Submits the TPC-C mix from every client at once; returns each call's outcome (or failure) in order. */
    private static List<Object> runMix(List<GargamelClient> clients, int callsPerClient, long seed) throws Exception {
        List<CompletableFuture<CallOutcome>> futures = new ArrayList<>();
        List<ProcedureCall> calls = SchedulerBenchmark.tpccMix(new SplittableRandom(seed), callsPerClient);
        for (ProcedureCall call : calls) {
            for (GargamelClient client : clients) {
                futures.add(client.submit(call));
            }
        }
        List<Object> outcomes = new ArrayList<>();
        for (CompletableFuture<CallOutcome> future : futures) {
            try {
                outcomes.add(future.get(45, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                outcomes.add(e.getCause());
            }
        }
        return outcomes;
    }

    private static Map<CallOutcome.Status, Integer> count(List<Object> outcomes) {
        Map<CallOutcome.Status, Integer> counts = new EnumMap<>(CallOutcome.Status.class);
        for (Object outcome : outcomes) {
            assertInstanceOf(CallOutcome.class, outcome, "every call gets an outcome, not a failure");
            counts.merge(((CallOutcome) outcome).status(), 1, Integer::sum);
        }
        return counts;
    }

    private static void assertCleanRun(TestCluster cluster, GargamelClient client, long expectedExecutions)
            throws Exception {
        assertEquals(List.of(), cluster.bus.violations, "dependencies ran first, workers exist");
        assertEquals(0, cluster.bus.duplicates.get(), "no transaction ran twice");
        assertEquals(expectedExecutions, cluster.bus.executions.get(), "each scheduled call ran exactly once");
        client.awaitQuiescence(Duration.ofSeconds(20));
        assertEquals(0, client.inFlightAtScheduler(), "every replica reported everything: the graph is empty");
    }

    @Test
    void inMemoryClusterRunsTheMixWithExactlyOneOutcomePerCall() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(3, 2)) {
            cluster.bus.abortProcedure = "delivery";
            GargamelClient first = cluster.readyClient(OPTIONS);
            GargamelClient second = cluster.client(OPTIONS);
            List<Object> outcomes = runMix(List.of(first, second), 1500, 1);
            Map<CallOutcome.Status, Integer> counts = count(outcomes);
            int deliveries = 0;
            for (Object outcome : outcomes) {
                CallOutcome o = (CallOutcome) outcome;
                if (o.status() == CallOutcome.Status.USER_ABORTED) {
                    deliveries++;
                    assertEquals("P0001", o.sqlState());
                    assertTrue(o.message().contains("delivery"), o.message());
                } else {
                    assertEquals(CallOutcome.Status.COMMITTED, o.status(), String.valueOf(o));
                    assertTrue(o.result().startsWith("ok "), o.result());
                }
            }
            assertTrue(deliveries > 0, "the mix has deliveries, user-aborted by the fake nodes: " + counts);
            assertEquals(3000, outcomes.size());
            assertEquals(
                    3, cluster.bus.executed.values().stream().distinct().count(), "updates spread over the 3 nodes");
            assertCleanRun(cluster, first, 3000);
            assertEquals(3000, cluster.scheduler.scheduledCount());
        }
    }

    @Test
    void tcpClusterOnLoopback() throws Exception {
        try (TestCluster cluster = TestCluster.tcp(2, 2)) {
            GargamelClient client = cluster.readyClient(OPTIONS);
            List<Object> outcomes = runMix(List.of(client), 1000, 2);
            assertEquals(Map.of(CallOutcome.Status.COMMITTED, 1000), count(outcomes));
            assertCleanRun(cluster, client, 1000);
        }
    }

    @Test
    void lossAndDelayStillGiveExactlyOneOutcomePerCall() throws Exception {
        // The faults are switched on once the group has formed (the in-memory stack has no MERGE3 to heal a
        // partition that lost discovery messages would leave), then hit every message of the run.
        List<DELAY> delays = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<DISCARD> discards = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (TestCluster cluster = TestCluster.inMemory(Mode.GARGAMEL, 100_000, 2, 2, channel -> {
            try {
                DELAY delay = new DELAY();
                delay.init(); // the channel's stack was initialised already: a protocol inserted now must be too
                DISCARD discard = new DISCARD();
                channel.getProtocolStack()
                        .insertProtocol(delay, ProtocolStack.Position.ABOVE, SHARED_LOOPBACK_PING.class);
                channel.getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE, DELAY.class);
                delays.add(delay);
                discards.add(discard);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        })) {
            GargamelClient client = cluster.readyClient(OPTIONS);
            assertEquals(3, discards.size(), "scheduler and both nodes have the fault protocols");
            for (DELAY delay : delays) {
                delay.setInDelay(3);
                delay.setOutDelay(3);
            }
            for (DISCARD discard : discards) {
                discard.setUpDiscardRate(0.05).setDownDiscardRate(0.05);
            }
            List<ProcedureCall> calls = new ArrayList<>(SchedulerBenchmark.tpccMix(new SplittableRandom(3), 400));
            calls.add(ProcedureCall.of("no_such_procedure", 1));
            List<CompletableFuture<CallOutcome>> futures = new ArrayList<>();
            for (ProcedureCall call : calls) {
                futures.add(client.submit(call));
            }
            int committed = 0;
            for (int i = 0; i < futures.size(); i++) {
                CallOutcome outcome = futures.get(i).get(45, TimeUnit.SECONDS);
                if (i == calls.size() - 1) {
                    assertEquals(CallOutcome.Status.REJECTED, outcome.status());
                } else {
                    assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), String.valueOf(outcome));
                    committed++;
                }
            }
            assertEquals(400, committed);
            long dropped = 0;
            for (DISCARD discard : discards) {
                dropped += dropped(discard, "num_up") + dropped(discard, "num_down");
            }
            assertTrue(dropped > 0, "the run lost messages (" + dropped + ") and UNICAST3 resent them");
            assertCleanRun(cluster, client, 400);
        }
    }

    @Test
    void aNodeWhoseConfigurationDiffersIsRefusedWithTheDifferenceNamed() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1)) {
            GargamelClient client = cluster.readyClient(OPTIONS);
            ClusterProfile agreed = FakeNode.profile(Mode.GARGAMEL);
            FakeNode otherMode = cluster.addNode("node-2", 1, FakeNode.profile(Mode.ROUND_ROBIN));
            FakeNode otherIsolationAndRules = cluster.addNode(
                    "node-3",
                    1,
                    new ClusterProfile(Mode.GARGAMEL, Isolation.SI, "0000000000000000", agreed.schemaDigest()));
            FakeNode otherSchema = cluster.addNode(
                    "node-4", 1, new ClusterProfile(Mode.GARGAMEL, Isolation.PSI, agreed.rulesDigest(), "another"));
            FakeNode otherReplicas = cluster.addNode(
                    "node-5",
                    1,
                    new ClusterProfile(
                            Mode.GARGAMEL,
                            Isolation.PSI,
                            agreed.rulesDigest(),
                            agreed.schemaDigest(),
                            List.of("node-5", "node-1")));
            Await.until(
                    "the four nodes refused",
                    Duration.ofSeconds(10),
                    () -> !otherMode.refusals.isEmpty()
                            && !otherIsolationAndRules.refusals.isEmpty()
                            && !otherSchema.refusals.isEmpty()
                            && !otherReplicas.refusals.isEmpty());
            assertEquals(
                    List.of("mode round-robin (the scheduler runs gargamel)"),
                    differences(otherMode.refusals.get(0).reason()));
            List<String> both =
                    differences(otherIsolationAndRules.refusals.get(0).reason());
            assertEquals(2, both.size(), both.toString());
            assertEquals("isolation si (the scheduler's is psi)", both.get(0));
            assertTrue(
                    both.get(1)
                            .startsWith("rules digest 0000000000000000 (the scheduler's rules give "
                                    + agreed.rulesDigest()),
                    both.get(1));
            String schema = otherSchema.refusals.get(0).reason();
            assertTrue(
                    schema.contains("schema digest another (node-1, the first node to join, has fake-schema"), schema);
            assertEquals(
                    List.of(
                            "replicas [node-5, node-1] (node-1, the first node to join, has []: every node must list the"
                                    + " same replicas in the same order, which decide the write-set log's members and each"
                                    + " node's sequence slot)"),
                    differences(otherReplicas.refusals.get(0).reason()));
            // A fake node says hello again at every view change (a real one stops at its first refusal).
            assertTrue(
                    cluster.scheduler.refusedNodeCount() >= 4,
                    "refused hellos: " + cluster.scheduler.refusedNodeCount());
            // Refused nodes are not counted and get no call: the scheduler still knows one node, which runs them all.
            assertEquals(1, client.drainStatus(Duration.ofSeconds(10)).nodes());
            List<Object> outcomes = runMix(List.of(client), 200, 3);
            assertEquals(Map.of(CallOutcome.Status.COMMITTED, 200), count(outcomes));
            assertEquals(Set.of("node-1"), new HashSet<>(cluster.bus.executed.values()));
        }
    }

    /** The differences a refusal names, one per phrase: "...differs from the cluster's: A; B (docs...)". */
    private static List<String> differences(String reason) {
        String list =
                reason.substring(reason.indexOf("cluster's: ") + "cluster's: ".length(), reason.lastIndexOf(" (docs/"));
        return List.of(list.split("; "));
    }

    @Test
    void badCallsAreRejectedWithTheClassifiersMessage() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1)) {
            GargamelClient client = cluster.readyClient(OPTIONS);
            CallOutcome unknown =
                    client.submit(ProcedureCall.of("no_such_procedure", 1)).get(10, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.REJECTED, unknown.status());
            assertTrue(unknown.message().contains("unknown procedure 'no_such_procedure'"), unknown.message());
            CallOutcome arity = client.submit(ProcedureCall.of("delivery", 1)).get(10, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.REJECTED, arity.status());
            assertTrue(arity.message().contains("delivery takes"), arity.message());
            assertEquals(0, cluster.bus.executions.get(), "nothing rejected reaches a node");
            assertEquals(2, cluster.scheduler.rejectedCount());
        }
    }

    @Test
    void noNodeMeansRejectedNotSilence() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(0, 1)) {
            GargamelClient client = cluster.client(OPTIONS);
            CallOutcome outcome = client.submit(
                            ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)))
                    .get(40, TimeUnit.SECONDS); // held 15 s for a node first
            assertEquals(CallOutcome.Status.REJECTED, outcome.status());
            assertTrue(outcome.message().contains("no node"), outcome.message());
        }
    }

    @Test
    void schedulerOverloadIsAnImmediateRejection() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(Mode.GARGAMEL, 5, 1, 2, channel -> {})) {
            cluster.nodes.get(0).pause(true);
            GargamelClient client = cluster.readyClient(OPTIONS);
            List<CompletableFuture<CallOutcome>> futures = new ArrayList<>();
            for (int w = 1; w <= 8; w++) {
                futures.add(
                        client.submit(ProcedureCall.of("delivery", w, 1, java.time.LocalDateTime.now(ZoneOffset.UTC))));
            }
            // The 3 beyond the limit are rejected while the 5 others wait at the paused node.
            int rejected = 0;
            for (int i = 5; i < 8; i++) {
                CallOutcome outcome = futures.get(i).get(10, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.REJECTED, outcome.status());
                assertTrue(
                        outcome.message().contains("overloaded")
                                && outcome.message().contains("maxInFlight 5"),
                        outcome.message());
                rejected++;
            }
            assertEquals(3, rejected);
            for (int i = 0; i < 5; i++) {
                assertFalse(futures.get(i).isDone(), "call " + i + " waits at the paused node");
            }
            cluster.nodes.get(0).pause(false);
            for (int i = 0; i < 5; i++) {
                assertEquals(
                        CallOutcome.Status.COMMITTED,
                        futures.get(i).get(10, TimeUnit.SECONDS).status());
            }
        }
    }

    @Test
    void clientOverloadAndTimeoutFailClearlyAndAtOnce() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1)) {
            cluster.nodes.get(0).pause(true);
            GargamelClient client =
                    cluster.readyClient(new ClientOptions(2, Duration.ofMillis(500), Duration.ofSeconds(20)));
            CompletableFuture<CallOutcome> a =
                    client.submit(ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            CompletableFuture<CallOutcome> b =
                    client.submit(ProcedureCall.of("delivery", 2, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            CompletableFuture<CallOutcome> c =
                    client.submit(ProcedureCall.of("delivery", 3, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            assertTrue(c.isCompletedExceptionally(), "the third call fails at once");
            GargamelClientException overload = failure(c);
            assertEquals(GargamelClientException.Reason.OVERLOADED, overload.reason());
            assertTrue(overload.getMessage().contains("2 calls are already in flight"), overload.getMessage());
            GargamelClientException timeout = failure(a);
            assertEquals(GargamelClientException.Reason.TIMED_OUT, timeout.reason());
            assertTrue(timeout.getMessage().contains("outcome is unknown"), timeout.getMessage());
            assertEquals(GargamelClientException.Reason.TIMED_OUT, failure(b).reason());
            assertEquals(0, client.inFlight(), "timed-out calls free their slots");
        }
    }

    @Test
    void aNodeLeavingHasItsCallsAnsweredFromTheLogOrRunAgainOnTheSurvivors() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(2, 1)) {
            FakeNode staying = cluster.nodes.get(0);
            FakeNode leaving = cluster.nodes.get(1);
            staying.pause(true);
            leaving.pause(true);
            GargamelClient client = cluster.readyClient(OPTIONS);
            // Independent calls (one warehouse each) while both nodes are paused: the least-loaded choice
            // alternates node-1 and node-2.
            List<CompletableFuture<CallOutcome>> futures = new ArrayList<>();
            for (int w = 1; w <= 10; w++) {
                futures.add(
                        client.submit(ProcedureCall.of("delivery", w, 1, java.time.LocalDateTime.now(ZoneOffset.UTC))));
            }
            waitUntil(() -> cluster.scheduler.scheduledCount() == 10, "every call was scheduled");
            staying.pause(false);
            waitUntil(() -> cluster.bus.executions.get() >= 5, "node-1 ran its share");
            // node-2 runs two of its five calls and dies before answering them: their write-sets are delivered.
            leaving.mute(true);
            leaving.budget(2);
            leaving.pause(false);
            waitUntil(() -> cluster.bus.executions.get() >= 7, "node-2 ran two calls");
            Set<Long> ranByTheDeparted = new HashSet<>();
            cluster.bus.executed.forEach((txn, node) -> {
                if (node.equals("node-2")) {
                    ranByTheDeparted.add(txn);
                }
            });
            leaving.close();
            int fromTheLog = 0;
            int ranAgain = 0;
            for (CompletableFuture<CallOutcome> future : futures) {
                CallOutcome outcome = future.get(20, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
                String ranAt = cluster.bus.executed.get(outcome.txnId());
                assertEquals("ok " + outcome.txnId(), outcome.result(), "the outcome of the execution that counts");
                if (ranByTheDeparted.contains(outcome.txnId())) {
                    assertEquals("node-2", ranAt);
                    fromTheLog++;
                } else if (outcome.txnId() > TransactionIds.firstOf(cluster.scheduler.epoch()) + 9) {
                    assertEquals("node-1", ranAt, "a call run again runs on the survivor");
                    ranAgain++;
                }
            }
            assertEquals(2, fromTheLog, "node-2's two delivered transactions are answered from their write-sets");
            assertEquals(3, ranAgain, "node-2's three others ran again on node-1");
            assertEquals(2, cluster.scheduler.answeredFromLogCount());
            assertEquals(3, cluster.scheduler.ranAgainCount());
            assertEquals(0, cluster.scheduler.rejectedCount());
            assertEquals(0, cluster.bus.duplicates.get());
            assertEquals(List.of(), cluster.bus.violations);
            // The survivor was asked to settle node-2's five update transactions in the write-set group's total order.
            assertEquals("node-2", staying.abandons.get(0).origin());
            assertEquals(5, staying.abandons.get(0).transactions().length, staying.abandons.toString());
            // The cluster goes on with node-1 alone, and quiesces.
            CallOutcome after = client.submit(
                            ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)))
                    .get(20, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.COMMITTED, after.status());
            waitUntil(
                    () -> {
                        try {
                            return client.drainStatus(Duration.ofSeconds(5)).inFlight() == 0;
                        } catch (Exception e) {
                            return false;
                        }
                    },
                    "quiescence");
            assertEquals(1, client.drainStatus(Duration.ofSeconds(5)).nodes());
        }
    }

    /**
     * An ABANDON can be lost before the write-set log holds it: every survivor it went to stopped first (cut off from
     * the log's majority, its append gave up) or the message was dropped while the views changed. The scheduler sends
     * it again, to one live node at a time, until it holds a settlement of each of the departed node's calls; sent
     * once, those calls waited for ever. Every node answers every copy of a decision alike, so the scheduler also gets
     * settlements of calls it has answered or placed again already: it takes them as nothing, and each call still gets
     * one outcome and runs once.
     */
    @Test
    void aLostAbandonIsSentAgainUntilItsCallsAreSettled() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(3, 1)) {
            FakeNode first = cluster.nodes.get(0);
            FakeNode second = cluster.nodes.get(1);
            FakeNode leaving = cluster.nodes.get(2);
            cluster.nodes.forEach(node -> node.pause(true));
            GargamelClient client = cluster.readyClient(OPTIONS);
            List<CompletableFuture<CallOutcome>> futures = new ArrayList<>();
            for (int w = 1; w <= 9; w++) { // independent calls (one warehouse each): three on each node
                futures.add(
                        client.submit(ProcedureCall.of("delivery", w, 1, java.time.LocalDateTime.now(ZoneOffset.UTC))));
            }
            waitUntil(() -> cluster.scheduler.scheduledCount() == 9, "every call was scheduled");
            int onTheDeparted = leaving.received.size();
            assertTrue(onTheDeparted >= 2, "node-3 has calls to settle: " + leaving.received);
            first.pause(false);
            second.pause(false);
            waitUntil(() -> cluster.bus.executions.get() >= 9 - onTheDeparted, "node-1 and node-2 ran theirs");
            // node-3 runs one of its calls and dies before answering it: its write-set is in the log, it stands.
            leaving.mute(true);
            leaving.budget(1);
            leaving.pause(false);
            waitUntil(() -> cluster.bus.executions.get() == 10 - onTheDeparted, "node-3 ran one call");
            // node-1 loses every ABANDON, node-2 the first one: no settlement comes of the first sending.
            first.loseAbandons(Integer.MAX_VALUE);
            second.loseAbandons(1);
            second.repeatSettlements(true);
            leaving.close();
            for (CompletableFuture<CallOutcome> future : futures) {
                CallOutcome outcome = future.get(40, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
            }
            assertTrue(second.abandons.size() >= 2, "node-2 got the decision again: " + second.abandons);
            assertEquals(
                    "node-3", second.abandons.get(second.abandons.size() - 1).origin());
            assertEquals(1, cluster.scheduler.answeredFromLogCount(), "the call node-3 ran, once");
            assertEquals(onTheDeparted - 1, cluster.scheduler.ranAgainCount(), "node-3's others, once each");
            assertEquals(0, cluster.scheduler.rejectedCount());
            assertEquals(9, cluster.bus.executions.get(), "each call ran once: where placed, or again elsewhere");
            assertEquals(0, cluster.bus.duplicates.get());
            assertEquals(List.of(), cluster.bus.violations);
            // Settled: nothing of node-3 is in flight any more, so no ABANDON is sent again.
            waitUntil(
                    () -> {
                        try {
                            return client.drainStatus(Duration.ofSeconds(5)).inFlight() == 0;
                        } catch (Exception e) {
                            return false;
                        }
                    },
                    "quiescence");
        }
    }

    @Test
    void theLastNodeLeavingLeavesItsCallsOutcomesUnknown() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1)) {
            FakeNode only = cluster.nodes.get(0);
            only.pause(true);
            GargamelClient client = cluster.readyClient(OPTIONS);
            CompletableFuture<CallOutcome> update =
                    client.submit(ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            waitUntil(() -> cluster.scheduler.scheduledCount() == 1, "the call was scheduled");
            only.close();
            CallOutcome outcome = update.get(20, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.REJECTED, outcome.status());
            assertTrue(
                    outcome.message().contains("every node left")
                            && outcome.message().contains("unknown"),
                    outcome.message());
            assertEquals(0, cluster.bus.executions.get());
        }
    }

    /**
     * Scheduler failover, as the scheduler and client see it: the scheduler dies with calls placed and not run; the
     * client's calls wait (a call submitted in the gap too); a new scheduler is made active with a new epoch, gets
     * every pending call again from the client, and places them with ids of its epoch; the superseded scheduler's
     * placements are dropped by the node; each call gets exactly one outcome.
     */
    @Test
    void aNewSchedulerGetsThePendingCallsOnceWithIdsOfItsOwnEpoch() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1)) {
            FakeNode node = cluster.nodes.get(0);
            node.pause(true);
            GargamelClient client = cluster.readyClient(OPTIONS);
            // The client sees the node before the node's grant reaches the scheduler: wait for it, do not race it.
            waitUntil(() -> cluster.scheduler.epoch() > 0, "the first scheduler was made active");
            long firstEpoch = cluster.scheduler.epoch();
            CompletableFuture<CallOutcome> placed =
                    client.submit(ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            waitUntil(() -> cluster.scheduler.scheduledCount() == 1, "the call was placed");
            cluster.scheduler.close();
            waitUntil(() -> client.inFlight() == 1, "the client still waits");
            CompletableFuture<CallOutcome> inTheGap =
                    client.submit(ProcedureCall.of("delivery", 2, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            // close() returned: the first scheduler's loop has stopped and it left the group, so no member is left
            // that could answer; the client holds both calls for the next scheduler.
            waitUntil(() -> client.inFlight() == 2, "the call of the gap is held at the client too");
            assertFalse(placed.isDone(), "no outcome while no scheduler is here: " + placed);
            assertFalse(inTheGap.isDone(), "a call of the gap waits too: " + inTheGap);
            SchedulerServer next = cluster.replaceScheduler();
            waitUntil(() -> next.epoch() > firstEpoch, "the new scheduler was made active with a later epoch");
            node.pause(false);
            for (CompletableFuture<CallOutcome> future : List.of(placed, inTheGap)) {
                CallOutcome outcome = future.get(20, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
                assertEquals(next.epoch(), TransactionIds.epochOf(outcome.txnId()), "an id of the new epoch");
            }
            assertEquals(2, client.resubmittedCount(), "both calls went to the new scheduler");
            assertEquals(1, cluster.bus.droppedStale.get(), "the old placement never ran");
            assertEquals(2, cluster.bus.executions.get(), "each call ran once");
            assertEquals(0, cluster.bus.duplicates.get());
            client.close();
            CompletableFuture<CallOutcome> closed =
                    client.submit(ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            assertTrue(failure(closed).getMessage().contains("closed"));
        }
    }

    /**
     * A standby scheduler: a second scheduler process in the group stands by (no claim, no epoch) while the first is
     * here; when the first dies, the standby is the oldest scheduler left, every member takes it for the active one, it
     * claims, and the client's pending call completes through it.
     */
    @Test
    void aStandbySchedulerTakesOverWhenTheActiveOneLeaves() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1)) {
            FakeNode node = cluster.nodes.get(0);
            GargamelClient client = cluster.readyClient(OPTIONS);
            SchedulerServer standby = cluster.startStandby();
            waitUntil(standby::standingBy, "the second scheduler stands by");
            // A claim is sent from the loop, on a view: once the loop has handled every view queued so far and a call
            // has gone through the first scheduler and the node, a standby that claimed would hold an epoch.
            SchedulerLoop.fence(standby, Duration.ofSeconds(20));
            long firstEpoch = cluster.scheduler.epoch();
            CallOutcome before = client.submit(
                            ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)))
                    .get(20, TimeUnit.SECONDS);
            assertEquals(firstEpoch, TransactionIds.epochOf(before.txnId()), "served by the first scheduler");
            assertEquals(0, standby.epoch(), "a standby does not claim");
            assertTrue(standby.standingBy(), "it still stands by");
            node.pause(true);
            CompletableFuture<CallOutcome> pending =
                    client.submit(ProcedureCall.of("delivery", 2, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            waitUntil(() -> cluster.scheduler.scheduledCount() == 2, "the second call was placed");
            cluster.scheduler.close();
            waitUntil(() -> standby.epoch() > firstEpoch, "the standby took over with a later epoch");
            assertFalse(standby.standingBy());
            node.pause(false);
            CallOutcome after = pending.get(20, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.COMMITTED, after.status(), after.toString());
            assertEquals(standby.epoch(), TransactionIds.epochOf(after.txnId()), "served by the standby");
            assertEquals(2, cluster.bus.executions.get(), "each call ran once");
            assertEquals(0, cluster.bus.duplicates.get());
        }
    }

    /**
     * A scheduler superseded while it was cut off, still alive: a node that meets it tells it (SUPERSEDED with the
     * active epoch). A notice of an epoch not after its own is ignored; a later one stops it with {@link
     * SupersededException}, answering nothing (a call that reaches it then is dropped, not rejected); once it has left,
     * the standby takes over and the client's calls, the placed one and the one of the gap, complete there, once each.
     */
    /**
     * A client sends its pending calls again to a scheduler that left its view and came back (a partition's merge):
     * a copy of a call still in flight there must not be placed beside the first, or both could run before either is
     * in the log (PartitionIT created a New-Order twice so). The first run answers the call, once.
     */
    @Test
    void aCopyOfACallStillInFlightIsNotPlacedTwice() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1);
                JChannel sender =
                        Channels.control(GroupConfig.inMemory(), GargamelClient.CLIENT_NAME_PREFIX + "resender")) {
            FakeNode node = cluster.nodes.get(0);
            cluster.readyClient(OPTIONS);
            sender.connect(Channels.CONTROL_CLUSTER);
            node.pause(true);
            SubmitCall call =
                    new SubmitCall(41, ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            MessageEndpoint.send(sender, cluster.scheduler.address(), call);
            waitUntil(() -> cluster.scheduler.scheduledCount() == 1, "the call was placed");
            MessageEndpoint.send(sender, cluster.scheduler.address(), call); // the copy, same client and call id
            waitUntil(() -> cluster.scheduler.ignoredCopyCount() == 1, "the copy was seen");
            MessageEndpoint.send(
                    sender,
                    cluster.scheduler.address(),
                    new SubmitCall(
                            42, ProcedureCall.of("delivery", 2, 1, java.time.LocalDateTime.now(ZoneOffset.UTC))));
            waitUntil(() -> cluster.scheduler.scheduledCount() == 2, "another call id is placed");
            node.pause(false);
            waitUntil(() -> cluster.bus.executions.get() == 2, "both calls ran");
            // Placed twice in all (41 once, 42 once): the copy never reached a node.
            assertEquals(2, cluster.scheduler.scheduledCount(), "call 41 placed once, not twice");
        }
    }

    @Test
    void aSupersededSchedulerStopsWithoutAnsweringAndItsCallsCompleteAtTheActiveOne() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(1, 1);
                JChannel prober =
                        Channels.control(GroupConfig.inMemory(), GargamelClient.CLIENT_NAME_PREFIX + "prober")) {
            FakeNode node = cluster.nodes.get(0);
            GargamelClient client = cluster.readyClient(OPTIONS);
            SchedulerServer superseded = cluster.scheduler;
            SchedulerServer standby = cluster.startStandby();
            waitUntil(standby::standingBy, "the second scheduler stands by");
            long firstEpoch = superseded.epoch();
            node.pause(true);
            CompletableFuture<CallOutcome> placed =
                    client.submit(ProcedureCall.of("delivery", 1, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            waitUntil(() -> superseded.scheduledCount() == 1, "the call was placed");

            CompletableFuture<DrainStatus> answered = new CompletableFuture<>();
            prober.setReceiver(new MessageEndpoint("prober", answered::completeExceptionally)
                    .on(DrainStatus.class, MessageType.DRAIN_STATUS, (source, status) -> answered.complete(status)));
            prober.connect(Channels.CONTROL_CLUSTER);
            MessageEndpoint.send(prober, superseded.address(), new Superseded("node-9", firstEpoch));
            // The fence: a drain query from the same sender comes after the notice and is answered from the loop, so
            // the loop has handled the notice when the answer is here.
            MessageEndpoint.send(prober, superseded.address(), new DrainQuery(1));
            waitUntil(
                    () -> answered.isDone() || superseded.failure().isDone(),
                    "the drain query sent after the notice answered (or the scheduler stopped)");
            assertFalse(superseded.failure().isDone(), "a notice of its own epoch changes nothing");

            MessageEndpoint.send(prober, superseded.address(), new Superseded("node-9", firstEpoch + 7));
            Throwable reason = superseded.failure().get(20, TimeUnit.SECONDS);
            assertTrue(SupersededException.isCause(reason), String.valueOf(reason));
            assertTrue(reason.getMessage().contains("epoch " + (firstEpoch + 7)), reason.getMessage());
            CompletableFuture<CallOutcome> inTheGap =
                    client.submit(ProcedureCall.of("delivery", 2, 1, java.time.LocalDateTime.now(ZoneOffset.UTC)));
            // A superseded scheduler answers nothing, nor rejects: a rejection would complete the call's future before
            // the active scheduler's COMMITTED, checked below (a future completes once).
            assertFalse(inTheGap.isDone(), "a superseded scheduler answers nothing: " + inTheGap);

            superseded.close(); // as gargamel scheduler does: it leaves, and starts again to stand by
            assertEquals(0, superseded.rejectedCount(), "nor rejects");
            waitUntil(() -> standby.epoch() > firstEpoch, "the standby took over");
            node.pause(false);
            for (CompletableFuture<CallOutcome> future : List.of(placed, inTheGap)) {
                CallOutcome outcome = future.get(20, TimeUnit.SECONDS);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
                assertEquals(standby.epoch(), TransactionIds.epochOf(outcome.txnId()), "served by the active one");
            }
            assertEquals(2, cluster.bus.executions.get(), "each call ran once");
            assertEquals(0, cluster.bus.duplicates.get());
        }
    }

    /** DISCARD counts what it dropped in protected fields (shown over JMX only). */
    private static int dropped(DISCARD discard, String field) throws ReflectiveOperationException {
        java.lang.reflect.Field counter = DISCARD.class.getDeclaredField(field);
        counter.setAccessible(true);
        return counter.getInt(discard);
    }

    private static GargamelClientException failure(CompletableFuture<CallOutcome> future) throws Exception {
        try {
            CallOutcome outcome = future.get(20, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + outcome);
        } catch (ExecutionException e) {
            assertNotNull(e.getCause());
            return assertInstanceOf(GargamelClientException.class, e.getCause());
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
