package org.gargamel.scheduler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.Agreement;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.scheduler.sites.SiteSettings;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A site's node that leaves with an update in flight, seen by two real site schedulers (eu and us, agreeing through a
 * real schedule log) and fake nodes that share one "write-set log" (docs/multisite.md, A node's failure at a site).
 * The departed node's call is in every site's agreed order, and a later call may name it alone as its back-dependency:
 * it is settled (ABANDON) only once its own agreed back-dependencies are in the write-set log, and when the site had
 * no other node, once a node is back.
 */
@Tag("cluster")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SiteNodeFailureTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** SchedulerServer's ORPHAN_GRACE: how long an orphan waits for its nodes' answers before it is settled. */
    private static final long ORPHAN_GRACE_MILLIS = 500;

    private static final List<String> SITES = List.of("eu", "us");

    private final FakeNode.Bus bus = new FakeNode.Bus();
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private SchedulerServer siteScheduler(String site) throws Exception {
        SchedulerServer scheduler = new SchedulerServer(new SchedulerConfig(
                        GroupSettings.inMemory(), Mode.GARGAMEL, Isolation.PSI, TpccRules.temporaryFile(), 100_000)
                .withSite(new SiteSettings(site, SITES, GroupSettings.inMemory(), "optimistic", Map.of())));
        started.add(scheduler);
        scheduler.start(); // the schedule log elects once both sites are in
        return scheduler;
    }

    private FakeNode node(String name, String site) throws Exception {
        FakeNode node = new FakeNode(
                name, site, 2, GroupConfig.inMemory(), bus, channel -> {}, FakeNode.profile(Mode.GARGAMEL));
        started.add(node);
        return node;
    }

    private GargamelClient client(String site, int nodes) throws Exception {
        GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), ClientOptions.defaults(), site);
        started.add(client);
        client.awaitNodes(nodes, WAIT);
        return client;
    }

    /**
     * A Payment of {@code amount} by customer 1 of warehouse 1, district 1: every one conflicts with every other (they
     * write the customer's c_data; the year-to-date totals are commutative increments, which conflict with nothing).
     */
    private static ProcedureCall payment(int amount) {
        return ProcedureCall.of(
                "payment", 1, 1, 1, 1, 1, null, BigDecimal.valueOf(amount), LocalDateTime.of(2026, 1, 1, 10, 0));
    }

    private static Execute executeOf(List<FakeNode> nodes, int amount) throws Exception {
        Execute[] found = new Execute[1];
        Await.until("an EXECUTE of the Payment of " + amount, WAIT, () -> {
            for (FakeNode node : nodes) {
                for (Execute execute : node.received) {
                    if (execute.call().procedure().equals("payment")
                            && new BigDecimal(String.valueOf(
                                                    execute.call().arguments().get(6)))
                                            .compareTo(BigDecimal.valueOf(amount))
                                    == 0) {
                        found[0] = execute;
                        return true;
                    }
                }
            }
            return false;
        });
        return found[0];
    }

    /** How many nodes {@code client}'s scheduler counts (a drain query, answered from its loop). */
    private static int nodesSeenBy(GargamelClient client) {
        try {
            return client.drainStatus(WAIT).nodes();
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the site scheduler did not answer a drain query", e);
        }
    }

    /** How many calls {@code scheduler}'s agreement placed from the schedule log (its own and other sites'). */
    private static long agreedAt(SchedulerServer scheduler) {
        try {
            return scheduler.agreementCounters().orElseThrow().agreed();
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the site scheduler's loop did not answer", e);
        }
    }

    private static FakeNode holding(List<FakeNode> nodes, long txn) {
        return nodes.stream()
                .filter(node -> node.received.stream().anyMatch(execute -> execute.txnId() == txn))
                .findFirst()
                .orElseThrow();
    }

    private static Agreement agreementOf(FakeNode node, long txn) throws Exception {
        Await.until(
                "the AGREEMENT of " + txn + " at " + node.name(),
                WAIT,
                () -> node.agreements.stream().anyMatch(agreement -> agreement.txnId() == txn));
        return node.agreements.stream()
                .filter(agreement -> agreement.txnId() == txn)
                .findFirst()
                .orElseThrow();
    }

    /**
     * us places a Payment (D) on its node, which holds it (paused: its write-set is not in the log). eu reads D from
     * the schedule log, then places a Payment of the same district (A), which the agreement puts after D. A's node
     * leaves before running it. Settled at once, A would be "done" before D is in the write-set log, and a call placed
     * after A alone would run before D; so the survivor gets no ABANDON while D is held, and gets it once D is in.
     * A runs again on the survivor, after D; each call commits once.
     */
    @Test
    void aDepartedNodesCallIsAbandonedOnlyOnceItsAgreedDependenciesAreInTheWriteSetLog() throws Exception {
        SchedulerServer eu = siteScheduler("eu");
        siteScheduler("us");
        List<FakeNode> euNodes = List.of(node("eu-1", "eu"), node("eu-2", "eu"));
        FakeNode usNode = node("us-1", "us");
        GargamelClient euClient = client("eu", 2);
        GargamelClient usClient = client("us", 1);

        usNode.pause(true);
        CompletableFuture<CallOutcome> atUs = usClient.submit(payment(7));
        long d = executeOf(List.of(usNode), 7).txnId();
        Await.until("eu to read us's Payment from the schedule log", WAIT, () -> agreedAt(eu) >= 1);

        CompletableFuture<CallOutcome> atEu = euClient.submit(payment(8));
        Execute a = executeOf(euNodes, 8);
        assertTrue(
                Arrays.stream(a.backDependencies()).anyMatch(dependency -> dependency == d),
                "eu placed A after D: " + Arrays.toString(a.backDependencies()));
        FakeNode departing = holding(euNodes, a.txnId());
        FakeNode survivor =
                euNodes.stream().filter(node -> node != departing).findFirst().orElseThrow();
        assertTrue(
                Arrays.stream(agreementOf(departing, a.txnId()).dependencies()).anyMatch(dependency -> dependency == d),
                "the agreement put A after D");

        departing.close();
        // The settlement waits for D. eu's scheduler handled the departure (it counts one node left); the orphans'
        // grace then passes, and a read answered from eu's loop after it is the fence: the loop settles orphans at
        // the top of every turn, so an ABANDON that did not wait for D would have been sent before that answer.
        Await.until("eu's scheduler saw the node leave", WAIT, () -> nodesSeenBy(euClient) == 1);
        Thread.sleep(2 * ORPHAN_GRACE_MILLIS); // pacing: the grace must run out; the fence below is the check
        agreedAt(eu);
        assertTrue(survivor.abandons.isEmpty(), "no ABANDON while D is not in the write-set log: " + survivor.abandons);
        assertFalse(atEu.isDone(), "A waits for its settlement");

        usNode.pause(false);
        CallOutcome outcomeAtUs = atUs.get(30, TimeUnit.SECONDS);
        assertEquals(CallOutcome.Status.COMMITTED, outcomeAtUs.status(), outcomeAtUs.toString());
        CallOutcome outcomeAtEu = atEu.get(30, TimeUnit.SECONDS);
        assertEquals(CallOutcome.Status.COMMITTED, outcomeAtEu.status(), outcomeAtEu.toString());
        assertNotEquals(a.txnId(), outcomeAtEu.txnId(), "A ran again, under a new transaction");
        assertEquals(1, survivor.abandons.size(), survivor.abandons.toString());
        assertTrue(
                Arrays.stream(survivor.abandons.get(0).transactions()).anyMatch(txn -> txn == a.txnId()),
                survivor.abandons.toString());
        assertFalse(bus.executed.containsKey(a.txnId()), "the departed node never ran A");
        assertEquals(List.of(), bus.violations);
        assertEquals(0, bus.duplicates.get());
    }

    /**
     * eu's only node holds an agreed Payment (A) and leaves; us then places a Payment of the same district (B) after
     * A. A's client is told its outcome is unknown (no node is left to say), but A is in every site's agreed order and
     * B waits for it: once a node of eu is back, A is settled (ABANDON: it never ran) and B commits.
     */
    @Test
    void aSiteThatLostItsOnlyNodeSettlesItsCallOnceANodeIsBackAndTheOtherSiteGoesOn() throws Exception {
        SchedulerServer eu = siteScheduler("eu");
        SchedulerServer us = siteScheduler("us");
        FakeNode lost = node("eu-1", "eu");
        FakeNode usNode = node("us-1", "us");
        GargamelClient euClient = client("eu", 1);
        GargamelClient usClient = client("us", 1);

        lost.pause(true);
        CompletableFuture<CallOutcome> atEu = euClient.submit(payment(3));
        long a = executeOf(List.of(lost), 3).txnId();
        agreementOf(lost, a);
        Await.until("us to read eu's Payment from the schedule log", WAIT, () -> agreedAt(us) >= 1);
        CompletableFuture<CallOutcome> atUs = usClient.submit(payment(4));
        Execute b = executeOf(List.of(usNode), 4);
        assertTrue(
                Arrays.stream(b.backDependencies()).anyMatch(dependency -> dependency == a),
                "us placed B after A: " + Arrays.toString(b.backDependencies()));

        lost.close();
        CallOutcome unknown = atEu.get(30, TimeUnit.SECONDS);
        assertEquals(CallOutcome.Status.REJECTED, unknown.status(), unknown.toString());
        assertTrue(unknown.message().contains("outcome is unknown"), unknown.toString());
        // eu's scheduler answered A's client, so it handled the departure; once the orphans' grace has passed, a turn
        // of each site's loop (a read answered there) is the fence: neither settled A, so B still waits.
        Thread.sleep(2 * ORPHAN_GRACE_MILLIS); // pacing: the grace must run out; the fences below are the check
        agreedAt(eu);
        agreedAt(us);
        assertFalse(atUs.isDone(), "B waits for A, which no node has settled");

        FakeNode back = node("eu-2", "eu");
        CallOutcome outcomeAtUs = atUs.get(30, TimeUnit.SECONDS);
        assertEquals(CallOutcome.Status.COMMITTED, outcomeAtUs.status(), outcomeAtUs.toString());
        assertEquals(1, back.abandons.size(), back.abandons.toString());
        assertTrue(
                Arrays.stream(back.abandons.get(0).transactions()).anyMatch(txn -> txn == a), back.abandons.toString());
        assertFalse(bus.executed.containsKey(a), "A never ran");
        assertEquals(List.of(), bus.violations);
        assertEquals(0, bus.duplicates.get());
    }
}
