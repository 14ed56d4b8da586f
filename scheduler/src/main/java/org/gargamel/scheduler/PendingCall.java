package org.gargamel.scheduler;

import java.util.Map;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.Execute;
import org.gargamel.scheduler.core.Placement;
import org.jgroups.Address;

/**
 * A call placed on a node and not yet reported by it: who to tell, and what to place again (with its session's
 * transaction) if the node leaves. {@code placed}: where it was placed (its worker, whether read-only).
 * {@code agreed}: a site's call's agreed back-dependencies once the schedule log placed it (null before, and for a
 * single site): what settling it needs if every node of the site is lost.
 */
record PendingCall(
        Address client,
        long callId,
        String node,
        ProcedureCall call,
        long after,
        Placement placed,
        @SuppressWarnings("ArrayRecordComponent") long[] agreed) {
    PendingCall(Address client, long callId, ProcedureCall call, long after, Placement placed) {
        this(client, callId, placed.worker().node(), call, after, placed, null);
    }

    PendingCall withAgreed(long[] dependencies) {
        return new PendingCall(client, callId, node, call, after, placed, dependencies);
    }

    /**
     * The {@code EXECUTE} of this call at {@code placement} ({@code provisional}: it commits only on its
     * {@code AGREEMENT}; {@code barrier}: it waits for the write-set log, and for {@code shippedBefore}).
     */
    Execute execute(Placement placement, boolean provisional, boolean barrier, Map<String, Long> shippedBefore) {
        return new Execute(
                placement.txn(),
                placement.worker().index(),
                placement.readOnly(),
                placement.backDependencies(),
                client,
                callId,
                call,
                provisional,
                barrier,
                shippedBefore);
    }

    /** Its placement once the log placed it for good, after {@code dependencies}, on the worker it was given. */
    Placement dispatched(long[] dependencies) {
        return new Placement(placed.txn(), placed.worker(), dependencies, placed.readOnly());
    }
}
