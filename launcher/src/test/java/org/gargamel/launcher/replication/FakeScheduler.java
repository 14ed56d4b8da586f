package org.gargamel.launcher.replication;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Receiver;

/**
 * Stands in for the scheduler (and the client) in the in-memory control group, so a test decides exactly which
 * worker runs which call with which back-dependencies; it collects the outcomes and every node's progress.
 */
final class FakeScheduler implements AutoCloseable {
    final JChannel channel;
    final Map<String, Address> nodes = new ConcurrentHashMap<>();
    final Map<Long, CallOutcome> outcomes = new ConcurrentHashMap<>();
    final Map<String, Set<Long>> visible = new ConcurrentHashMap<>();

    FakeScheduler() throws Exception {
        channel = Channels.control(GroupConfig.inMemory(), GargamelClient.SCHEDULER_NAME);
        channel.setReceiver(new Receiver() {
            @Override
            public void receive(org.jgroups.Message message) {
                Message decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
                if (decoded instanceof NodeHello hello) {
                    nodes.put(hello.nodeName(), message.getSrc());
                } else if (decoded instanceof Progress progress) {
                    Set<Long> seen =
                            visible.computeIfAbsent(progress.nodeName(), name -> ConcurrentHashMap.newKeySet());
                    for (long txn : progress.visible()) {
                        seen.add(txn);
                    }
                } else if (decoded instanceof CallOutcome outcome) {
                    outcomes.put(outcome.txnId(), outcome);
                }
            }
        });
        channel.connect(Channels.CONTROL_CLUSTER);
    }

    void awaitNodes(int count) throws InterruptedException {
        awaitCondition(() -> nodes.size() >= count, "nodes to say hello: " + nodes.keySet());
    }

    void execute(String node, int worker, long txn, long[] dependencies, ProcedureCall call) throws Exception {
        Execute execute = new Execute(txn, worker, false, dependencies, channel.getAddress(), txn, call);
        channel.send(new BytesMessage(nodes.get(node), WireCodec.encode(execute)));
    }

    /** A multi-site EXECUTE: provisional, it commits only on its {@link #agree AGREEMENT} (docs/multisite.md). */
    void executeProvisional(String node, int worker, long txn, long[] dependencies, ProcedureCall call)
            throws Exception {
        Execute execute = new Execute(txn, worker, false, dependencies, channel.getAddress(), txn, call, true);
        channel.send(new BytesMessage(nodes.get(node), WireCodec.encode(execute)));
    }

    /** Where the schedule log placed provisional {@code txn}: as dispatched, or (collided) after {@code dependencies}. */
    void agree(String node, long txn, boolean collided, long[] dependencies) throws Exception {
        channel.send(new BytesMessage(
                nodes.get(node),
                WireCodec.encode(new org.gargamel.common.wire.Agreement(txn, collided, dependencies))));
    }

    /** Waits until every node reported every transaction of {@code txns}. */
    void awaitVisibleEverywhere(java.util.Collection<Long> txns) throws InterruptedException {
        awaitCondition(
                () -> nodes.keySet().stream()
                        .allMatch(node -> visible.getOrDefault(node, Set.of()).containsAll(txns)),
                txns.size() + " transactions to be visible at every node; outcomes so far: " + outcomes.size());
    }

    /** Waits until every node reported every transaction in [first, last]. */
    void awaitVisibleEverywhere(long first, long last) throws InterruptedException {
        awaitCondition(
                () -> {
                    for (String node : nodes.keySet()) {
                        Set<Long> seen = visible.getOrDefault(node, Set.of());
                        for (long txn = first; txn <= last; txn++) {
                            if (!seen.contains(txn)) {
                                return false;
                            }
                        }
                    }
                    return true;
                },
                "transactions " + first + ".." + last + " to be visible at every node; outcomes so far: "
                        + outcomes.size());
    }

    Map<CallOutcome.Status, Integer> statusCounts() {
        Map<CallOutcome.Status, Integer> counts = new HashMap<>();
        outcomes.values().forEach(outcome -> counts.merge(outcome.status(), 1, Integer::sum));
        return counts;
    }

    private static void awaitCondition(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        channel.close();
    }
}
