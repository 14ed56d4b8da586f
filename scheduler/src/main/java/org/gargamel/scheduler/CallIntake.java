package org.gargamel.scheduler;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.SiteScheduler;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clients' calls as they come in: a copy of a call in flight here is ignored, a call no node can take yet is held
 * ({@link HeldCalls}), one over {@code maxInFlight} is rejected, and every other is placed ({@link SiteCoordinator})
 * and sent to its node.
 *
 * <p>Single-threaded: owned by the scheduler's event loop (the counters are read from any thread).
 */
final class CallIntake {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);

    private final int maxInFlight;
    private final Scheduler scheduler;
    private final CallTable calls;
    private final NodeRegistry nodes;
    private final SiteCoordinator sites;
    private final EpochClaim takeOver;
    private final LoopContext loop;
    private final HeldCalls held = new HeldCalls();

    private final AtomicLong ignoredCopies = new AtomicLong();
    private final AtomicLong scheduled = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();

    CallIntake(
            int maxInFlight,
            Scheduler scheduler,
            CallTable calls,
            NodeRegistry nodes,
            SiteCoordinator sites,
            EpochClaim takeOver,
            LoopContext loop) {
        this.maxInFlight = maxInFlight;
        this.scheduler = scheduler;
        this.calls = calls;
        this.nodes = nodes;
        this.sites = sites;
        this.takeOver = takeOver;
        this.loop = loop;
    }

    /** Copies of calls in flight here that a client sent again, not placed twice. */
    long ignoredCopies() {
        return ignoredCopies.get();
    }

    long scheduled() {
        return scheduled.get();
    }

    long rejected() {
        return rejected.get();
    }

    boolean holdsCalls() {
        return !held.isEmpty();
    }

    void onSubmit(Address client, SubmitCall submit) {
        Long copyOf = calls.inFlight(client, submit.callId());
        if (copyOf != null) {
            ignoredCopies.incrementAndGet();
            LOG.info(
                    "call {} of {} came again while its first copy is in flight here (transaction {}): not placed "
                            + "twice; the first one answers it",
                    submit.callId(),
                    client,
                    copyOf);
            return;
        }
        if (!takeOver.active() || scheduler.nodeCount() == 0) {
            held.hold(client, submit); // until a node serves
            return;
        }
        if (scheduler.inFlight() >= maxInFlight) {
            reject(
                    client,
                    submit.callId(),
                    "overloaded: " + scheduler.inFlight() + " transactions in flight (maxInFlight " + maxInFlight
                            + "); retry later");
            return;
        }
        place(client, submit.callId(), submit.call(), submit.after());
    }

    /** Places a call and sends it to its node; a call the scheduler refuses is rejected to its client. */
    void place(Address client, long callId, ProcedureCall call, long after) {
        SiteScheduler.HomeCall home;
        try {
            home = sites.place(call, after);
        } catch (RejectedCallException e) {
            calls.refused(client, callId); // placed again after a node left, and refused now
            reject(client, callId, e.getMessage());
            return;
        }
        loop.about(home.placement().txn());
        String node = home.placement().worker().node();
        Address target = nodes.address(node);
        if (target == null) {
            // A null target would multicast the EXECUTE to every member: every node would run the call.
            throw new IllegalStateException(
                    "placed on " + node + ", which has no address in the control group (known: " + nodes.names() + ")");
        }
        PendingCall placed = sites.pending(new PendingCall(client, callId, call, after, home.placement()), home);
        calls.placed(home.placement().txn(), placed);
        scheduled.incrementAndGet();
        if (home.dispatchNow()) {
            loop.send(target, placed.execute(home.placement(), home.provisional(), false, Map.of()));
        }
        sites.placed(home);
    }

    /** Places the held calls once a node serves; rejects those held too long ({@link HeldCalls}). */
    void releaseHeld() {
        if (takeOver.active() && scheduler.nodeCount() > 0) {
            held.release(this::onSubmit);
            return;
        }
        held.expire(
                System.nanoTime(),
                call -> reject(
                        call.client(),
                        call.submit().callId(),
                        "no node has joined the cluster (or every node has left) within "
                                + HeldCalls.HOLD_LIMIT.toSeconds() + " s"
                                + (takeOver.active() ? "" : ", and no node has made this scheduler the active one")
                                + ": no worker to run " + call.submit().call().procedure()));
    }

    void reject(Address client, long callId, String reason) {
        rejected.incrementAndGet();
        loop.send(client, CallOutcome.rejected(callId, -1, reason));
    }
}
