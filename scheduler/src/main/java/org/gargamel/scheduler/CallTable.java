package org.gargamel.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jgroups.Address;

/**
 * The calls in flight at this scheduler: placed on a node and not yet reported ({@code pending}), or of a departed
 * node and waiting for the survivors' settlement ({@code unsettled}), each by transaction, and every one of them by
 * client and call id. A client sends a call again to a scheduler that left its view and came back (a partition's
 * merge); a copy of a call still in flight here is not placed beside it: both could run before either is in the log,
 * where the nodes' memory of answered calls would catch the second (docs/protocol.md, Scheduler failover).
 *
 * <p>Invariant (CallTableTest): a call is known by client and call id exactly while it is pending or unsettled.
 *
 * <p>Single-threaded: owned by the scheduler's event loop.
 */
final class CallTable {
    private record CallRef(Address client, long callId) {}

    private final Map<Long, PendingCall> pending = new HashMap<>();
    private final Map<Long, PendingCall> unsettled = new HashMap<>();
    private final Map<CallRef, Long> inFlight = new HashMap<>();

    /** The transaction of call {@code callId} of {@code client} if it is in flight here, else null. */
    Long inFlight(Address client, long callId) {
        return inFlight.get(new CallRef(client, callId));
    }

    /** {@code call} was placed as {@code txn} and sent (or is held for the log) to its node. */
    void placed(long txn, PendingCall call) {
        pending.put(txn, call);
        inFlight.put(new CallRef(call.client(), call.callId()), txn);
    }

    /** A call placed again (its node left) was refused: it is no longer in flight. */
    void refused(Address client, long callId) {
        inFlight.remove(new CallRef(client, callId));
    }

    /** The pending call of {@code txn}, or null. */
    PendingCall pending(long txn) {
        return pending.get(txn);
    }

    /** {@code node} reported {@code txn} visible: if it is the node's pending call, it is done; returns it, or null. */
    PendingCall reported(String node, long txn) {
        PendingCall call = pending.get(txn);
        if (call == null || !call.node().equals(node)) {
            return null;
        }
        pending.remove(txn);
        inFlight.remove(new CallRef(call.client(), call.callId()), txn);
        return call;
    }

    /** The node of {@code txn} left: its pending call, removed from the pending ones (still in flight), or null. */
    PendingCall lost(long txn) {
        return pending.remove(txn);
    }

    /** A departed node's update call: in flight until the survivors settle it. */
    void unsettle(long txn, PendingCall call) {
        unsettled.put(txn, call);
    }

    /** The survivors settled {@code txn}: its unsettled call, no longer in flight, or null. */
    PendingCall settled(long txn) {
        PendingCall call = unsettled.remove(txn);
        if (call != null) {
            inFlight.remove(new CallRef(call.client(), call.callId()));
        }
        return call;
    }

    /** The schedule log placed {@code txn} after {@code dependencies}: kept with its call, pending or unsettled. */
    void agreed(long txn, long[] dependencies) {
        pending.computeIfPresent(txn, (id, call) -> call.withAgreed(dependencies));
        unsettled.computeIfPresent(txn, (id, call) -> call.withAgreed(dependencies));
    }

    boolean isUnsettled(long txn) {
        return unsettled.containsKey(txn);
    }

    /** The unsettled call of {@code txn}, or null. */
    PendingCall unsettledCall(long txn) {
        return unsettled.get(txn);
    }

    int unsettledCount() {
        return unsettled.size();
    }

    /** Every unsettled call, by transaction, removed (and no longer in flight): every node left. */
    Map<Long, PendingCall> takeUnsettled() {
        Map<Long, PendingCall> all = new LinkedHashMap<>(unsettled);
        for (Map.Entry<Long, PendingCall> call : all.entrySet()) {
            settled(call.getKey());
        }
        return all;
    }

    /** Up to {@code limit} unsettled calls, lowest transaction first, as "txn of node" (for the busy log line). */
    List<String> unsettledExamples(int limit) {
        List<String> examples = new ArrayList<>();
        unsettled.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .limit(limit)
                .forEach(entry ->
                        examples.add(entry.getKey() + " of " + entry.getValue().node()));
        return examples;
    }
}
