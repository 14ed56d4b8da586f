package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.gargamel.common.call.ProcedureCall;
import org.jgroups.Address;
import org.jgroups.util.Util;

/**
 * scheduler → node: run {@code call} as transaction {@code txnId} on {@code worker} (an index among the
 * node's workers) once every back-dependency is visible at the node, then send the outcome to
 * {@code client} quoting {@code callId}. Read-only calls have no write-set; their only back-dependency is their
 * session's last write, if any. In round-robin mode back-dependencies hold only that too, and the node certifies.
 *
 * <p>{@code provisional} (multi-site, docs/multisite.md): the schedule log has not placed the call yet, so its
 * back-dependencies are only its site's guess. The node runs it but commits only on its {@link Agreement}: as run if
 * confirmed, else after the agreed back-dependencies (cancelled if not started, killed if it ran).
 *
 * <p>{@code barrier} (site-owned conflict classes, docs/multisite.md): before it runs, the node applies everything the
 * write-set log committed before it got the call (it appends a mark and waits for it), so that it sees every call its
 * owners no longer name because every node of theirs has it. With a write-set log per site, {@code shippedBefore}
 * gives, for each other owner site, how far in that site's log the node must have applied what was shipped from it
 * ({@link SchedulePlacement#logPosition}); it waits for that before it appends its mark.
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the ids, and the long[] that the
// codec reads and writes (no boxed list per message) is never written once the message is built.
public record Execute(
        long txnId,
        int worker,
        boolean readOnly,
        @SuppressWarnings("ArrayRecordComponent") long[] backDependencies,
        Address client,
        long callId,
        ProcedureCall call,
        boolean provisional,
        boolean barrier,
        java.util.Map<String, Long> shippedBefore)
        implements Message {
    private static final int READ_ONLY = 1;
    private static final int PROVISIONAL = 2;
    private static final int BARRIER = 4;

    public Execute {
        if (provisional && readOnly) {
            throw new IllegalArgumentException("a read-only call is never provisional: it enters no schedule");
        }
        if (barrier && (readOnly || provisional)) {
            throw new IllegalArgumentException("only an update call placed for good is sent behind a barrier");
        }
        shippedBefore = java.util.Map.copyOf(shippedBefore);
        if (!barrier && !shippedBefore.isEmpty()) {
            throw new IllegalArgumentException("only a call behind a barrier waits for what other sites shipped");
        }
    }

    /** A call, behind a barrier of its own site's log only or none. */
    public Execute(
            long txnId,
            int worker,
            boolean readOnly,
            long[] backDependencies,
            Address client,
            long callId,
            ProcedureCall call,
            boolean provisional,
            boolean barrier) {
        this(txnId, worker, readOnly, backDependencies, client, callId, call, provisional, barrier, java.util.Map.of());
    }

    /** A call without a barrier. */
    public Execute(
            long txnId,
            int worker,
            boolean readOnly,
            long[] backDependencies,
            Address client,
            long callId,
            ProcedureCall call,
            boolean provisional) {
        this(txnId, worker, readOnly, backDependencies, client, callId, call, provisional, false);
    }

    /** A call placed for good (single site, or placed by the schedule log). */
    public Execute(
            long txnId,
            int worker,
            boolean readOnly,
            long[] backDependencies,
            Address client,
            long callId,
            ProcedureCall call) {
        this(txnId, worker, readOnly, backDependencies, client, callId, call, false, false);
    }

    /** The same call, placed for good after {@code agreed}. */
    public Execute placedAfter(long[] agreed) {
        return new Execute(txnId, worker, readOnly, agreed, client, callId, call, false, barrier, shippedBefore);
    }

    @Override
    public MessageType type() {
        return MessageType.EXECUTE;
    }

    @Override
    public String describe() {
        return "EXECUTE transaction " + txnId + " (call " + callId + ", " + call.procedure() + ", worker " + worker
                + (provisional ? ", provisional" : "") + (barrier ? ", behind a barrier" : "") + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(txnId);
        out.writeInt(worker);
        out.writeByte((readOnly ? READ_ONLY : 0) | (provisional ? PROVISIONAL : 0) | (barrier ? BARRIER : 0));
        WireCodec.writeLongs(out, backDependencies);
        Util.writeAddress(client, out);
        out.writeLong(callId);
        WireCodec.writeCall(out, call);
        out.writeInt(shippedBefore.size());
        for (java.util.Map.Entry<String, Long> site : new java.util.TreeMap<>(shippedBefore).entrySet()) {
            WireCodec.writeString(out, site.getKey());
            out.writeLong(site.getValue());
        }
    }

    static Execute read(DataInput in) throws IOException {
        long txnId = in.readLong();
        int worker = in.readInt();
        int flags = in.readUnsignedByte();
        if ((flags & ~(READ_ONLY | PROVISIONAL | BARRIER)) != 0) {
            throw new MalformedMessageException("EXECUTE: unknown flags " + flags);
        }
        boolean readOnly = (flags & READ_ONLY) != 0;
        long[] dependencies = WireCodec.readLongs(in);
        Address client;
        try {
            client = Util.readAddress(in);
        } catch (ClassNotFoundException e) {
            throw new MalformedMessageException("EXECUTE: unreadable client address", e);
        }
        long callId = in.readLong();
        ProcedureCall call = WireCodec.readCall(in);
        if (call.adHoc() != null && !readOnly) {
            throw new MalformedMessageException("EXECUTE: an ad-hoc query placed as an update transaction");
        }
        boolean barrier = (flags & BARRIER) != 0;
        java.util.Map<String, Long> shippedBefore = new java.util.HashMap<>();
        int sites = WireCodec.readCount(in, "site count");
        for (int i = 0; i < sites; i++) {
            shippedBefore.put(WireCodec.readString(in), in.readLong());
        }
        return new Execute(
                txnId,
                worker,
                readOnly,
                dependencies,
                client,
                callId,
                call,
                (flags & PROVISIONAL) != 0,
                barrier,
                shippedBefore);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Execute e
                && txnId == e.txnId
                && worker == e.worker
                && readOnly == e.readOnly
                && java.util.Arrays.equals(backDependencies, e.backDependencies)
                && java.util.Objects.equals(client, e.client)
                && callId == e.callId
                && call.equals(e.call)
                && provisional == e.provisional
                && barrier == e.barrier
                && shippedBefore.equals(e.shippedBefore);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(txnId);
    }

    @Override
    public String toString() {
        return "Execute[txn=" + txnId + ", worker=" + worker + ", readOnly=" + readOnly + ", provisional=" + provisional
                + ", deps="
                + java.util.Arrays.toString(backDependencies) + ", call=" + call + (barrier ? ", barrier" : "")
                + (shippedBefore.isEmpty() ? "" : ", shippedBefore=" + shippedBefore) + "]";
    }
}
