package org.gargamel.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.NodeRefused;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Settlement;
import org.gargamel.common.wire.TakeOver;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.jgroups.util.NameCache;

/**
 * A tiny scheduler for node tests: joins the in-memory control group as {@code scheduler}, sends EXECUTE messages
 * with the dependencies the test chooses (it is also the client), and collects NODE_HELLO, PROGRESS and
 * CALL_OUTCOME.
 */
final class FakeScheduler implements AutoCloseable {
    private final JChannel channel;
    private final AtomicLong nextCallId = new AtomicLong(1);
    final Map<Long, CallOutcome> outcomesByTxn = new ConcurrentHashMap<>();
    final Map<String, Set<Long>> visible = new ConcurrentHashMap<>();
    final Map<String, Integer> hellos = new ConcurrentHashMap<>();
    /** Whether each node's latest NODE_HELLO said it is ready (false: joining, counted for collection only). */
    final Map<String, Boolean> ready = new ConcurrentHashMap<>();
    /** While set, joining nodes' DRAIN_QUERYs are kept unanswered (their joins wait) until {@link #answerDrains}. */
    private boolean holdDrains; // guarded by this, as heldDrains

    private final List<Runnable> heldDrains = new ArrayList<>();
    /** The epoch each node granted this scheduler (EPOCH_GRANTED), by node. */
    final Map<String, Long> grants = new ConcurrentHashMap<>();
    /** SUPERSEDED notices received, by node: the epoch each node said is active. */
    final Map<String, Long> supersededBy = new ConcurrentHashMap<>();
    /** The profile each node sent in its latest NODE_HELLO. */
    final Map<String, ClusterProfile> profiles = new ConcurrentHashMap<>();
    /** Every PROGRESS the nodes sent, in arrival order. */
    final List<Progress> reports = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The SETTLEMENTs the nodes sent, in arrival order. */
    final List<Settlement> settlements = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final Map<Long, Integer> outcomeCounts = new ConcurrentHashMap<>();
    private final Map<Long, Long> txnByCall = new ConcurrentHashMap<>();
    private volatile View view;

    FakeScheduler() throws Exception {
        channel = Channels.control(GroupConfig.inMemory(), "scheduler");
        channel.setReceiver(new MessageEndpoint("fake scheduler", failure -> {
                    throw new IllegalStateException(failure);
                })
                .on(CallOutcome.class, MessageType.CALL_OUTCOME, (source, outcome) -> {
                    outcomeCounts.merge(outcome.txnId(), 1, Integer::sum);
                    outcomesByTxn.put(outcome.txnId(), outcome);
                })
                .on(Progress.class, MessageType.PROGRESS, (source, progress) -> {
                    reports.add(progress);
                    Set<Long> ids = visible.computeIfAbsent(progress.nodeName(), n -> ConcurrentHashMap.newKeySet());
                    for (long id : progress.visible()) {
                        ids.add(id);
                    }
                })
                .on(Settlement.class, MessageType.SETTLEMENT, (source, settlement) -> settlements.add(settlement))
                .on(NodeHello.class, MessageType.NODE_HELLO, (source, hello) -> {
                    profiles.put(hello.nodeName(), hello.profile());
                    hellos.put(hello.nodeName(), hello.workers());
                    ready.put(hello.nodeName(), hello.ready());
                })
                .on(
                        EpochGranted.class,
                        MessageType.EPOCH_GRANTED,
                        (source, grant) -> grants.put(grant.nodeName(), grant.epoch()))
                .on(
                        org.gargamel.common.wire.Superseded.class,
                        MessageType.SUPERSEDED,
                        (source, notice) -> supersededBy.put(notice.nodeName(), notice.epoch()))
                .on(TakeOver.class, MessageType.TAKE_OVER, (source, takeOver) -> {})
                // A joining node's DRAIN_QUERY: nothing is in flight here.
                .on(
                        DrainQuery.class,
                        MessageType.DRAIN_QUERY,
                        (source, query) ->
                                answerOrHold(() -> reply(source, new DrainStatus(query.queryId(), 0, hellos.size()))))
                .onView(newView -> view = newView));
        channel.connect(Channels.CONTROL_CLUSTER);
    }

    private synchronized void answerOrHold(Runnable answer) {
        if (holdDrains) {
            heldDrains.add(answer);
        } else {
            answer.run();
        }
    }

    /** From now on joining nodes wait for the answer to their DRAIN_QUERY: their joins stay at the first step. */
    synchronized void holdDrains() {
        holdDrains = true;
    }

    /** Answers the DRAIN_QUERYs held, and those to come at once. */
    synchronized void answerDrains() {
        holdDrains = false;
        heldDrains.forEach(Runnable::run);
        heldDrains.clear();
    }

    private void reply(Address target, org.gargamel.common.wire.Message message) {
        try {
            channel.send(new BytesMessage(target, WireCodec.encode(message)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot answer " + target + ": " + e, e);
        }
    }

    /** How many outcomes each transaction got: exactly one, always. */
    int outcomeCount(long txn) {
        return outcomeCounts.getOrDefault(txn, 0);
    }

    Address member(String name) {
        for (Address member : view.getMembers()) {
            if (name.equals(NameCache.get(member))) {
                return member;
            }
        }
        throw new IllegalStateException(name + " is not in the control view " + view);
    }

    /** Asks {@code node} which of {@code txns} are visible there (VISIBILITY_QUERY); it answers with a PROGRESS. */
    void askVisible(String node, long... txns) throws Exception {
        channel.send(
                new BytesMessage(member(node), WireCodec.encode(new org.gargamel.common.wire.VisibilityQuery(txns))));
    }

    void execute(String node, int worker, long txn, long[] dependencies, boolean readOnly, ProcedureCall call)
            throws Exception {
        long callId = nextCallId.getAndIncrement();
        txnByCall.put(callId, txn);
        Execute execute = new Execute(txn, worker, readOnly, dependencies, channel.getAddress(), callId, call);
        channel.send(new BytesMessage(member(node), WireCodec.encode(execute)));
    }

    void execute(String node, int worker, long txn, long[] dependencies, ProcedureCall call) throws Exception {
        execute(node, worker, txn, dependencies, false, call);
    }

    /** A multi-site EXECUTE: the schedule log has not placed the call yet (docs/multisite.md). */
    void executeProvisional(String node, int worker, long txn, long[] dependencies, ProcedureCall call)
            throws Exception {
        long callId = nextCallId.getAndIncrement();
        txnByCall.put(callId, txn);
        Execute execute = new Execute(txn, worker, false, dependencies, channel.getAddress(), callId, call, true);
        channel.send(new BytesMessage(member(node), WireCodec.encode(execute)));
    }

    /** Where the schedule log placed provisional {@code txn}: as dispatched, or after {@code dependencies}. */
    void agree(String node, long txn, boolean collided, long... dependencies) throws Exception {
        channel.send(new BytesMessage(
                member(node), WireCodec.encode(new org.gargamel.common.wire.Agreement(txn, collided, dependencies))));
    }

    /**
     * Asks the nodes to make this scheduler the active one (as a real scheduler does at start) and waits until
     * {@code nodes} nodes granted it; its epoch.
     */
    long takeOver(int nodes) throws Exception {
        channel.send(new BytesMessage(null, WireCodec.encode(new TakeOver())));
        Await.until("the grants of " + nodes + " node(s)", Duration.ofSeconds(20), () -> grants.size() >= nodes);
        return grants.values().iterator().next();
    }

    /** This scheduler's address: the client of the calls it sends. */
    Address address() {
        return channel.getAddress();
    }

    /** An EXECUTE of a call of {@code client}'s, as a new scheduler places a call the client resubmitted to it. */
    void executeFor(Address client, long callId, String node, int worker, long txn, ProcedureCall call)
            throws Exception {
        txnByCall.put(callId, txn);
        Execute execute = new Execute(txn, worker, false, new long[0], client, callId, call);
        channel.send(new BytesMessage(member(node), WireCodec.encode(execute)));
    }

    /** Refuses {@code node}, as the scheduler does a node whose configuration differs. */
    void refuse(String node, String reason) throws Exception {
        channel.send(new BytesMessage(member(node), WireCodec.encode(new NodeRefused(node, reason))));
    }

    /** Tells {@code node} that {@code origin} left without reporting {@code txns}, as the scheduler does. */
    void abandon(String node, String origin, long... txns) throws Exception {
        channel.send(new BytesMessage(member(node), WireCodec.encode(new Abandon(origin, txns))));
    }

    CallOutcome awaitOutcome(long txn, long timeoutMillis) throws InterruptedException {
        Await.until(
                "the CALL_OUTCOME of transaction " + txn,
                Duration.ofMillis(timeoutMillis),
                () -> outcomesByTxn.containsKey(txn));
        return outcomesByTxn.get(txn);
    }

    /** Waits until every named node has reported every one of the transactions visible. */
    void awaitVisibleEverywhere(List<String> nodes, long[] txns, long timeoutMillis) throws InterruptedException {
        Await.until(
                "transactions visible everywhere",
                Duration.ofMillis(timeoutMillis),
                () -> missing(nodes, txns).isEmpty(),
                () -> "missing " + missing(nodes, txns));
    }

    private List<String> missing(List<String> nodes, long[] txns) {
        List<String> missing = new ArrayList<>();
        for (String node : nodes) {
            Set<Long> ids = visible.getOrDefault(node, Set.of());
            for (long txn : txns) {
                if (!ids.contains(txn)) {
                    missing.add(node + ":" + txn);
                }
            }
        }
        return missing;
    }

    @Override
    public void close() {
        channel.close();
    }
}
