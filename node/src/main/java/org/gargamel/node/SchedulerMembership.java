package org.gargamel.node;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Superseded;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.node.writeset.ActiveScheduler;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's membership at the scheduler (docs/protocol.md, Membership): which scheduler it follows in the control
 * view, and its join of that scheduler. A view with the scheduler in it: a node already serving at that scheduler
 * announces itself again; otherwise it joins: NODE_HELLO joining, so the scheduler counts it for garbage collection
 * from now on; a DRAIN_QUERY, whose answer says the scheduler has handled that; a catch-up mark appended to the
 * write-set log and applied here, so every transaction the scheduler may already have collected is reflected here;
 * then NODE_HELLO ready, and calls come.
 *
 * <p>Joins run on one supervised thread ({@link #run}), since catching up takes a while: a join waiting for the
 * answer of a scheduler that another one replaced in the view gives up, and the thread goes on with the next one.
 */
final class SchedulerMembership {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerMembership.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);
    /** How often a join waiting for the scheduler's answer checks that the scheduler is still the one followed. */
    private static final long ANSWER_POLL_MILLIS = 10;

    /** A catch-up with the write-set log ({@link LogCatchUp#run}). */
    @FunctionalInterface
    interface CatchUp {
        void run() throws Exception;
    }

    private final String name;
    private final int workers;
    private final boolean siteLog;
    private final Supplier<ClusterProfile> profile;
    private final BiConsumer<Address, Message> send;
    private final ActiveScheduler activeScheduler;
    /** Whether a call of an epoch before the one given (its first transaction id) still runs or awaits its entry. */
    private final LongPredicate runningBefore;

    private final CatchUp catchUp;
    private final LongSupplier logPosition;
    private final BooleanSupplier closed;

    /** The scheduler this node follows (the oldest one in the view not superseded), or null. */
    private volatile Address scheduler;
    /** The scheduler this node serves (has joined, caught up, announced ready), or null. */
    private volatile Address servingAt;
    /**
     * The latest join asked for (the scheduler this node is joining or is to join), or null. Only that one runs: the
     * join thread skips a request that a later view replaced, so views A, B, A leave one join of A, never a stale join
     * that ends "not ready" (SchedulerMembershipTest).
     */
    private final AtomicReference<JoinRequest> joining = new AtomicReference<>();
    /** The schedulers to join, in the order asked for, for the join thread. */
    private final BlockingQueue<JoinRequest> requests = new LinkedBlockingQueue<>();
    /** The DRAIN_QUERYs of joins, by query id: their answers say the scheduler has handled the joining hello. */
    private final Map<Long, CompletableFuture<Void>> joinQueries = new ConcurrentHashMap<>();

    SchedulerMembership(
            String name,
            int workers,
            boolean siteLog,
            Supplier<ClusterProfile> profile,
            BiConsumer<Address, Message> send,
            ActiveScheduler activeScheduler,
            LongPredicate runningBefore,
            CatchUp catchUp,
            LongSupplier logPosition,
            BooleanSupplier closed) {
        this.name = name;
        this.workers = workers;
        this.siteLog = siteLog;
        this.profile = profile;
        this.send = send;
        this.activeScheduler = activeScheduler;
        this.runningBefore = runningBefore;
        this.catchUp = catchUp;
        this.logPosition = logPosition;
        this.closed = closed;
    }

    /** The scheduler this node follows, or null: where its progress reports go. */
    Address scheduler() {
        return scheduler;
    }

    /** Whether this node serves a scheduler (joined, caught up, announced ready) and has not lost sight of it since. */
    boolean serving() {
        return servingAt != null;
    }

    /** The answer to a join's DRAIN_QUERY. */
    void answered(DrainStatus status) {
        CompletableFuture<Void> handled = joinQueries.remove(status.queryId());
        if (handled != null) {
            handled.complete(null);
        }
    }

    /** A new control view: follows its scheduler, announcing itself again or asking the join thread to join it. */
    void announce(View view) {
        Address found = followedScheduler(view);
        if (!Objects.equals(found, scheduler) || view instanceof MergeView) {
            LOG.info(
                    "{}: {} view {} ({} members): {}",
                    name,
                    view instanceof MergeView ? "merged" : "new",
                    view.getViewId(),
                    view.size(),
                    found == null ? "no scheduler in it" : "following the scheduler at " + found);
        }
        scheduler = found;
        if (found == null || view instanceof MergeView) {
            // Out of sight of the scheduler (a partition, or it died), or back from a partition: the scheduler may
            // have taken this node for departed and settled its calls without it, so it joins again in two steps
            // (caught up with the log first) rather than announce itself ready at once.
            servingAt = null;
        }
        if (found == null) {
            return;
        }
        if (siteLog) {
            // A successor site scheduler learns at once how far this site's log has come: its placements of other
            // sites' calls must cover every call its predecessor forgot (docs/multisite.md).
            send.accept(found, new Progress(name, new long[0], logPosition.getAsLong()));
        }
        if (found.equals(servingAt)) {
            send.accept(found, new NodeHello(name, workers, true, profile.get()));
            return;
        }
        JoinRequest current = joining.get();
        if (current != null && current.target.equals(found)) {
            return; // already joining this scheduler
        }
        JoinRequest request = new JoinRequest(found);
        joining.set(request);
        requests.add(request);
    }

    /**
     * The scheduler this node follows in {@code view}: the oldest one the write-set log has not superseded (any other
     * stands by). Every superseded scheduler in the view is told so (SUPERSEDED with the active epoch): it was cut off,
     * not dead, and a merge brought it back. A merged view lists its members sorted by address, not by age, so the old
     * scheduler may come before the active one or after it; either way it must stop, and this node goes on at the
     * active one (its reports must not go to a scheduler that is about to stop: that one's transactions would stay in
     * flight at the active scheduler forever). Null if the view has no such scheduler.
     */
    private Address followedScheduler(View view) {
        Address followed = null;
        for (Address member : view.getMembers()) {
            if (!GargamelClient.SCHEDULER_NAME.equals(NameCache.get(member))) {
                continue;
            }
            if (activeScheduler.superseded(member)) {
                send.accept(member, new Superseded(name, activeScheduler.epoch()));
            } else if (followed == null) {
                followed = member;
            }
        }
        return followed;
    }

    /** The join thread (supervised): joins each scheduler asked for, one at a time, until the node stops. */
    void run() throws InterruptedException {
        while (true) {
            JoinRequest request = requests.take();
            if (request == joining.get()) {
                join(request);
            }
        }
    }

    private void join(JoinRequest request) throws InterruptedException {
        Address target = request.target;
        try {
            awaitTakeOver(target);
            send.accept(target, new NodeHello(name, workers, false, profile.get()));
            long queryId = new SecureRandom().nextLong();
            CompletableFuture<Void> handled = new CompletableFuture<>();
            joinQueries.put(queryId, handled);
            send.accept(target, new DrainQuery(queryId));
            awaitAnswer(request, handled);
            catchUp.run();
            servingAt = target;
            send.accept(target, new NodeHello(name, workers, true, profile.get()));
            LOG.info("{}: serving at {}", name, target);
        } catch (InterruptedException e) {
            throw e; // the node stops
        } catch (Exception e) {
            if (!closed.getAsBoolean()) {
                LOG.warn(
                        "{}: could not join the scheduler at {} (the next view change tries again): {}",
                        name,
                        target,
                        e.toString());
            }
        } finally {
            joining.compareAndSet(request, null);
        }
    }

    /**
     * Waits for the answer to the join's DRAIN_QUERY, up to {@link #JOIN_TIMEOUT}, or until another scheduler is to
     * be joined (a view without any scheduler leaves the join waiting: the same one may come back).
     */
    private void awaitAnswer(JoinRequest request, CompletableFuture<Void> handled) throws Exception {
        Address target = request.target;
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        while (true) {
            try {
                handled.get(ANSWER_POLL_MILLIS, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                if (request != joining.get()) {
                    throw new TimeoutException("the scheduler " + target + " was replaced before it answered");
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    /**
     * Scheduler failover (docs/protocol.md): before joining a new scheduler, the log must have made it active here (if
     * this node ever saw a claim: a node that never did has no earlier work, and a claim compacted out of the log is
     * old), and this node's calls of earlier epochs must be done: none running, and the entries of those that ran in
     * the log. The new scheduler answers no joining node until every node that applied its claim has said hello, so
     * no call of the new epoch runs anywhere before every earlier write-set is in the log ahead of it.
     */
    private void awaitTakeOver(Address target) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        while (activeScheduler.claimant() != null && !target.equals(activeScheduler.claimant())) {
            if (closed.getAsBoolean() || !target.equals(scheduler)) {
                throw new TimeoutException("the scheduler " + target + " left before the log made it active");
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the log did not make " + target + " the active scheduler within "
                        + JOIN_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(10);
        }
        long floor = TransactionIds.firstOf(activeScheduler.epoch());
        while (runningBefore.test(floor)) {
            if (closed.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(
                        "calls of an earlier scheduler were still running after " + JOIN_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(10);
        }
    }

    /** One join asked for by a view; compared by identity, so a later view's request for the same scheduler is new. */
    private static final class JoinRequest {
        final Address target;

        JoinRequest(Address target) {
            this.target = target;
        }
    }
}
