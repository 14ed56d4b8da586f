package org.gargamel.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;
import org.gargamel.common.wire.Abandon;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ABANDON decisions this scheduler sent, sent again until it holds a settlement of each of their transactions
 * (docs/protocol.md, Membership). A decision is lost when no survivor it went to appends it to the write-set log: each
 * died or stopped first (cut off from the log's majority, its append gave up), or the message was dropped while the
 * views changed. A settlement is lost with the nodes that would have sent it. Sent once, either left the departed
 * node's calls without an outcome for ever. The nodes answer a copy of a decision the log already settled with the
 * settlement they reached then (node module, {@code SettledTransactions}), so a resend is harmless either way, and the
 * scheduler takes a settlement of a call it no longer holds as nothing ({@link CallTable#settled}).
 *
 * <p>A resend carries only the transactions still unsettled and goes to one node, the next in name order each time (a
 * node still in the view that cannot append does not get every one), {@link #FIRST_WAIT} after the decision, then
 * after twice as long each time, up to {@link #LONGEST_WAIT}. A decision is forgotten once every transaction of it is
 * settled, or no longer held here (every node left: its call was answered as unknown).
 *
 * <p>Guarded by ClusterTest.aLostAbandonIsSentAgainUntilItsCallsAreSettled. Single-threaded: owned by the scheduler's
 * event loop.
 */
final class AbandonResends {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);

    /** How long a decision waits for its settlements before it is sent again the first time. */
    static final Duration FIRST_WAIT = Duration.ofSeconds(2);
    /** The longest wait between two resends of one decision. */
    static final Duration LONGEST_WAIT = Duration.ofSeconds(16);

    /** A decision sent, when it is due to be sent again, and how long it waited last. */
    private static final class Sent {
        final Abandon decision;
        final long sentAt;
        long dueAt;
        long waitNanos;

        Sent(Abandon decision, long now) {
            this.decision = decision;
            this.sentAt = now;
            this.waitNanos = FIRST_WAIT.toNanos();
            this.dueAt = now + waitNanos;
        }
    }

    private final CallTable calls;
    private final NodeRegistry nodes;
    private final LoopContext loop;
    private final LongSupplier clock;
    private final List<Sent> sent = new ArrayList<>();
    /** Which node gets the next resend, counting in name order. */
    private int turn;

    AbandonResends(CallTable calls, NodeRegistry nodes, LoopContext loop) {
        this(calls, nodes, loop, System::nanoTime);
    }

    AbandonResends(CallTable calls, NodeRegistry nodes, LoopContext loop, LongSupplier clock) {
        this.calls = calls;
        this.nodes = nodes;
        this.loop = loop;
        this.clock = clock;
    }

    /** {@code decision} went to the nodes: it is sent again while a call of it waits for its settlement here. */
    void sent(Abandon decision) {
        sent.add(new Sent(decision, clock.getAsLong()));
    }

    /** Sends again each decision that is due and still has an unsettled transaction; forgets the settled ones. */
    void tick() {
        if (sent.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        for (Iterator<Sent> each = sent.iterator(); each.hasNext(); ) {
            Sent decision = each.next();
            if (now - decision.dueAt < 0) {
                continue;
            }
            long[] unsettled = unsettled(decision.decision);
            if (unsettled.length == 0) {
                each.remove();
                continue;
            }
            Address target = nextNode();
            if (target == null) {
                continue; // no node: the calls are answered as unknown (Membership.onView)
            }
            LOG.info(
                    "no settlement yet of {} transaction(s) of {} after {} ms: sending the ABANDON again, to {}",
                    unsettled.length,
                    decision.decision.origin(),
                    (now - decision.sentAt) / 1_000_000,
                    target);
            loop.send(target, new Abandon(decision.decision.origin(), unsettled));
            decision.waitNanos = Math.min(decision.waitNanos * 2, LONGEST_WAIT.toNanos());
            decision.dueAt = now + decision.waitNanos;
        }
    }

    /** The transactions of the decisions sent that still wait for their settlement here. */
    long unsettledCount() {
        return sent.stream()
                .mapToLong(decision -> unsettled(decision.decision).length)
                .sum();
    }

    private long[] unsettled(Abandon decision) {
        return Arrays.stream(decision.transactions()).filter(calls::isUnsettled).toArray();
    }

    private Address nextNode() {
        List<String> names = nodes.names().stream().sorted().toList();
        if (names.isEmpty()) {
            return null;
        }
        String name = names.get(Math.floorMod(turn++, names.size()));
        return nodes.address(name);
    }
}
