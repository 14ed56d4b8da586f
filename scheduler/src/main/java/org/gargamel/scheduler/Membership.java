package org.gargamel.scheduler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.NodeRefused;
import org.gargamel.common.wire.Settlement;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.Scheduler;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes' comings and goings (docs/protocol.md, Membership): a node's hello (refused if its configuration differs
 * from the cluster's), a node leaving the view (its read-only calls run again at once; its updates are settled by the
 * survivors in the write-set log: ABANDON), and the survivors' SETTLEMENT (a call that stands is answered from its
 * write-set, an abandoned one runs again). Only when no node is left is a call's outcome unknown.
 *
 * <p>Single-threaded: owned by the scheduler's event loop.
 */
final class Membership {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);

    /** How the loop places a call again (a departed node's that had no effect). */
    @FunctionalInterface
    interface Rerun {
        void place(Address client, long callId, ProcedureCall call, long after);
    }

    /** How the loop tells a client its call was refused, or its outcome is unknown. */
    @FunctionalInterface
    interface Refusal {
        void reject(Address client, long callId, String reason);
    }

    private final Scheduler scheduler;
    private final CallTable calls;
    private final NodeRegistry nodes;
    private final SiteCoordinator sites;
    private final AbandonResends resends;
    private final LoopContext loop;
    private final Rerun placer;
    private final Refusal refusal;
    private final Supplier<View> view;
    private final Runnable checkTakeOver;

    private final AtomicLong refusedNodes = new AtomicLong();
    private final AtomicLong ranAgain = new AtomicLong();
    private final AtomicLong answeredFromLog = new AtomicLong();

    Membership(
            Scheduler scheduler,
            CallTable calls,
            NodeRegistry nodes,
            SiteCoordinator sites,
            AbandonResends resends,
            LoopContext loop,
            Rerun placer,
            Refusal refusal,
            Supplier<View> view,
            Runnable checkTakeOver) {
        this.scheduler = scheduler;
        this.calls = calls;
        this.nodes = nodes;
        this.sites = sites;
        this.resends = resends;
        this.loop = loop;
        this.placer = placer;
        this.refusal = refusal;
        this.view = view;
        this.checkTakeOver = checkTakeOver;
    }

    /** NODE_HELLOs refused because the node's configuration differs from the cluster's. */
    long refusedNodes() {
        return refusedNodes.get();
    }

    /** Calls of departed nodes run again on the survivors (abandoned in the log, or read-only). */
    long ranAgain() {
        return ranAgain.get();
    }

    /** Calls of departed nodes answered from their write-sets in the log (they stand). */
    long answeredFromLog() {
        return answeredFromLog.get();
    }

    void onHello(Address source, NodeHello hello) {
        View current = view.get();
        if (current != null && !current.containsMember(source)) {
            // It left after sending: accepting it would place calls on a departed node.
            LOG.debug("ignored a stale {} from {}: not in view {}", hello.describe(), source, current.getViewId());
            return;
        }
        if (hello.workers() < 1) {
            LOG.warn("ignored {} from {}: a node needs at least 1 worker", hello.describe(), source);
            return;
        }
        List<String> differences = nodes.differences(hello);
        if (!differences.isEmpty()) {
            String reason = "its configuration differs from the cluster's: " + String.join("; ", differences)
                    + " (docs/protocol.md, Membership)";
            LOG.error("refused {}: {}", named(hello.nodeName(), source), reason);
            refusedNodes.incrementAndGet();
            loop.send(source, new NodeRefused(hello.nodeName(), reason));
            return;
        }
        Address previous = nodes.address(hello.nodeName());
        if (previous != null && !previous.equals(source)) {
            LOG.warn("ignored {} from {}: that name belongs to {}", hello.describe(), source, previous);
            return;
        }
        try {
            scheduler.addNode(hello.nodeName(), hello.workers(), hello.ready());
        } catch (IllegalArgumentException | IllegalStateException e) {
            LOG.warn("ignored {} from {}: {}", hello.describe(), source, e.getMessage());
            return;
        }
        nodes.put(hello.nodeName(), source);
        sites.hello(hello.nodeName(), source, previous == null);
        checkTakeOver.run();
        if (nodes.adoptReference(hello)) {
            LOG.info(
                    "the cluster's schema digest is {} (from {}); rules digest {}; replicas {}",
                    nodes.reference().schemaDigest(),
                    hello.nodeName(),
                    nodes.profile().rulesDigest(),
                    nodes.reference().replicas());
        }
        if (previous == null) {
            LOG.info(
                    "{} joined with {} workers ({} node(s) now){}",
                    named(hello.nodeName(), source),
                    hello.workers(),
                    nodes.size(),
                    hello.ready() ? "" : "; it gets calls once it has caught up");
        } else if (hello.ready()) {
            LOG.debug("{} is ready", named(hello.nodeName(), source));
        } else {
            LOG.info(
                    "{} joins again (it lost sight of this scheduler, which still counted it): {} in flight",
                    named(hello.nodeName(), source),
                    scheduler.inFlight());
        }
    }

    /** The nodes not in {@code view} left: their calls run again or are settled by the survivors. */
    void onView(View view) {
        List<String> gone = nodes.outside(view);
        for (String node : gone) {
            Address address = nodes.remove(node);
            List<Placement> lost = scheduler.removeNode(node);
            LOG.info(
                    "{} left the cluster with {} call(s) it had not reported ({} node(s) left)",
                    named(node, address),
                    lost.size(),
                    nodes.size());
            for (Placement placement : lost) {
                loop.about(placement.txn());
                PendingCall call = calls.lost(placement.txn());
                if (call == null) {
                    continue;
                }
                if (placement.readOnly()) {
                    ranAgain.incrementAndGet();
                    placer.place(call.client(), call.callId(), call.call(), call.after()); // changed nothing anywhere
                } else {
                    calls.unsettle(placement.txn(), call);
                }
            }
            abandon(node, sites.abandonNow(lost));
        }
        if (!gone.isEmpty()) {
            sites.nodesLeft();
        }
        if (nodes.isEmpty() && calls.unsettledCount() > 0) {
            LOG.warn("every node has left: the outcomes of {} call(s) are unknown", calls.unsettledCount());
            for (Map.Entry<Long, PendingCall> waiting : calls.takeUnsettled().entrySet()) {
                // A site's call is in the agreed order of every site: the other sites' later calls wait for it, so it
                // is settled through the write-set log once a node of this site is back.
                sites.outcomeUnknown(waiting.getKey(), waiting.getValue());
                refusal.reject(
                        waiting.getValue().client(),
                        waiting.getValue().callId(),
                        "every node left the cluster before transaction " + waiting.getKey()
                                + " was settled; its outcome is unknown");
            }
        }
    }

    /**
     * How the survivors' log settled a departed node's transactions. Every node answers every copy of the decision
     * alike, and the decision may be sent again ({@link AbandonResends}): the first report of a call decides, a later
     * one finds it settled and is taken as nothing. A call that stands gets the outcome its origin gave, carried by its
     * write-set; an abandoned one had no effect anywhere and runs again on the survivors, in transaction order, so that
     * calls of the departed node that conflict run again in the order they first had.
     */
    void onSettlement(Settlement settlement) {
        for (CallOutcome outcome : settlement.stood()) {
            loop.about(outcome.txnId());
            PendingCall call = calls.settled(outcome.txnId());
            if (call != null) {
                answeredFromLog.incrementAndGet();
                loop.send(call.client(), outcome.forCall(call.callId())); // its rows and error fields too
            }
        }
        for (long txn : settlement.unknown()) {
            loop.about(txn);
            PendingCall call = calls.settled(txn);
            if (call != null) {
                refusal.reject(
                        call.client(),
                        call.callId(),
                        call.node() + " left after transaction " + txn + " was committed everywhere, and its result "
                                + "is no longer held: it ran once, its result is unknown");
            }
        }
        long[] abandoned = settlement.abandoned().clone();
        Arrays.sort(abandoned);
        for (long txn : abandoned) {
            loop.about(txn);
            PendingCall call = calls.settled(txn);
            if (call != null) {
                ranAgain.incrementAndGet();
                placer.place(call.client(), call.callId(), call.call(), call.after());
            }
        }
    }

    /**
     * Has the survivors settle, in their total order, the departed node's unreported update transactions: each counts
     * as done with no effect unless its write-set was delivered first, so calls that depend on it do not wait forever.
     * Every survivor broadcasts the decision (the scheduler is not in the write-set group): the first copy delivered
     * decides, the others change nothing but are answered alike, and one survivor leaving too cannot lose it. Should
     * every copy be lost, or every answer, the decision is sent again until its calls are settled ({@link
     * AbandonResends}).
     */
    private void abandon(String node, List<Placement> lost) {
        long[] updates = lost.stream()
                .filter(placement -> !placement.readOnly())
                .mapToLong(Placement::txn)
                .toArray();
        if (updates.length == 0 || nodes.isEmpty()) {
            return;
        }
        LOG.info("asking {} to settle {} transaction(s) of {} in the total order", nodes.names(), updates.length, node);
        Abandon decision = new Abandon(node, updates);
        for (Address survivor : nodes.addresses()) {
            loop.send(survivor, decision);
        }
        resends.sent(decision);
    }

    /** Whether two views hold the same members other than clients (clients come and go with every run). */
    static boolean sameNodes(View before, View after) {
        return withoutClients(before).equals(withoutClients(after));
    }

    private static List<Address> withoutClients(View view) {
        List<Address> members = new ArrayList<>();
        for (Address member : view.getMembers()) {
            String name = NameCache.get(member);
            if (name == null || !name.startsWith(GargamelClient.CLIENT_NAME_PREFIX)) {
                members.add(member);
            }
        }
        return members;
    }

    /** A node for the log: its name, and its address in the group when that is not simply the name. */
    private static String named(String node, Address address) {
        String shown = String.valueOf(address);
        return shown.equals(node) ? node : node + " (" + shown + ")";
    }
}
