package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.node.writeset.ActiveScheduler;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A node joins the scheduler in its view in this order, on its supervised join thread: NODE_HELLO joining, a
 * DRAIN_QUERY, once it is answered the catch-up with the log, then NODE_HELLO ready; serving, a new view announces it
 * ready at once. No cluster, no database: the messages it sends are recorded.
 */
@Tag("unit")
class SchedulerMembershipTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ClusterProfile PROFILE =
            new ClusterProfile(Mode.GARGAMEL, Isolation.PSI, "rules", "schema", List.of("node-1"));

    /** What the node did, in order: a message sent, or "catch-up". */
    private final BlockingQueue<Object> steps = new LinkedBlockingQueue<>();

    private final Supervisor supervisor = new Supervisor("node-1");

    @AfterEach
    void stop() {
        supervisor.stop(Duration.ofSeconds(5));
    }

    private Object next() throws InterruptedException {
        Object step = steps.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(step, "nothing happened within " + WAIT);
        return step;
    }

    @Test
    void aJoinSaysHelloDrainsCatchesUpThenSaysReady() throws Exception {
        Address node = UUID.randomUUID();
        NameCache.add(node, "node-1");
        Address scheduler = UUID.randomUUID();
        NameCache.add(scheduler, GargamelClient.SCHEDULER_NAME);
        SchedulerMembership membership = new SchedulerMembership(
                "node-1",
                2,
                false,
                () -> PROFILE,
                (target, message) -> {
                    assertEquals(scheduler, target);
                    steps.add(message);
                },
                new ActiveScheduler(null),
                floor -> false,
                () -> steps.add("catch-up"),
                () -> 0,
                () -> false);
        supervisor.start("node-1-join", membership::run);

        membership.announce(View.create(node, 1, node, scheduler));
        assertEquals(scheduler, membership.scheduler());
        assertEquals(new NodeHello("node-1", 2, false, PROFILE), next());
        Message query = (Message) next();
        assertInstanceOf(DrainQuery.class, query);
        membership.answered(new DrainStatus(((DrainQuery) query).queryId(), 0, 1));
        assertEquals("catch-up", next());
        assertEquals(new NodeHello("node-1", 2, true, PROFILE), next());

        membership.announce(View.create(node, 2, node, scheduler));
        assertEquals(new NodeHello("node-1", 2, true, PROFILE), next(), "serving: ready at once, no second join");
        supervisor.stop(Duration.ofSeconds(5));
        assertFalse(supervisor.failure().isDone(), "the join thread ends only when the node stops");
    }

    /**
     * Views A, B, A while the join of A is catching up: that join ends ready at A, the join of B that a later view
     * replaced never runs, and the second join of A ends ready too (a stale request that ran would say hello to B and
     * leave the node "not ready" at A).
     */
    @Test
    void aJoinReplacedByALaterViewNeverRuns() throws Exception {
        Address node = UUID.randomUUID();
        NameCache.add(node, "node-1");
        Address first = UUID.randomUUID();
        NameCache.add(first, GargamelClient.SCHEDULER_NAME);
        Address second = UUID.randomUUID();
        NameCache.add(second, GargamelClient.SCHEDULER_NAME);
        java.util.concurrent.CountDownLatch caughtUp = new java.util.concurrent.CountDownLatch(1);
        SchedulerMembership membership = new SchedulerMembership(
                "node-1",
                2,
                false,
                () -> PROFILE,
                (target, message) -> steps.add(List.of(target.equals(first) ? "A" : "B", message)),
                new ActiveScheduler(null),
                floor -> false,
                () -> {
                    steps.add("catch-up");
                    try {
                        caughtUp.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                () -> 0,
                () -> false);
        supervisor.start("node-1-join", membership::run);

        membership.announce(View.create(node, 1, node, first));
        assertEquals(List.of("A", new NodeHello("node-1", 2, false, PROFILE)), next());
        answer(membership, "A");
        assertEquals("catch-up", next());
        membership.announce(View.create(node, 2, node, second));
        membership.announce(View.create(node, 3, node, first));
        caughtUp.countDown();
        assertEquals(List.of("A", new NodeHello("node-1", 2, true, PROFILE)), next(), "the first join ends ready");
        assertEquals(
                List.of("A", new NodeHello("node-1", 2, false, PROFILE)),
                next(),
                "the latest view's join of the same scheduler, not the replaced join of the other");
        answer(membership, "A");
        assertEquals("catch-up", next());
        assertEquals(List.of("A", new NodeHello("node-1", 2, true, PROFILE)), next(), "and it ends ready");
    }

    /** Answers the DRAIN_QUERY the node sent {@code scheduler} next. */
    private void answer(SchedulerMembership membership, String scheduler) throws InterruptedException {
        Object step = next();
        assertInstanceOf(List.class, step);
        assertEquals(scheduler, ((List<?>) step).get(0), "the query goes to " + scheduler);
        DrainQuery query = assertInstanceOf(DrainQuery.class, ((List<?>) step).get(1));
        membership.answered(new DrainStatus(query.queryId(), 0, 1));
    }
}
