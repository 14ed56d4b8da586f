package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * node ↔ node in total order: what transaction {@code txnId}, executed at {@code origin}, changed.
 * Empty when the procedure raised an error (it still counts as done for its dependents).
 *
 * @param procedure        the procedure that produced it (for the nodes' execute-versus-apply statistics)
 * @param backDependencies the transactions that must be visible before this one is applied (PSI)
 * @param snapshot         certification (round-robin mode): how many certified write-sets the origin had
 *                         committed when the transaction started; -1 outside round-robin mode
 * @param order            PSI: where it stands among its origin's committed transactions ({@link Order#NONE}
 *                         for a write-set whose place the log itself decides: SI, round-robin, an empty one)
 * @param outcome          what the origin answers its client (COMMITTED with the result, or USER_ABORTED), so that a
 *                         survivor can answer for a delivered transaction whose origin died before replying; null
 *                         where no call stands behind it (tests)
 * @param caller           the client the outcome goes to, with it (null without an outcome): a call resubmitted after
 *                         a scheduler's failover is recognised by (caller, call id) and answered with this outcome
 *                         instead of running twice (docs/protocol.md, Scheduler failover)
 * @param append           which append of its origin's log end carried it ({@link Append}): a copy of the entry (an
 *                         append sent again) carries the same, and replicas recognise it by that
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the ids, and the long[] that the
// codec reads and writes (no boxed list per message) is never written once the message is built.
public record WriteSet(
        long txnId,
        String origin,
        String procedure,
        @SuppressWarnings("ArrayRecordComponent") long[] backDependencies,
        long snapshot,
        Order order,
        List<RowChange> changes,
        CallOutcome outcome,
        org.jgroups.Address caller,
        Append append)
        implements Message {

    /**
     * The append that carried a write-set to the log, stamped by its origin's end of the log (WriteSetLog) when it is
     * first sent; a copy sent again carries the same bytes. {@code sequence} numbers the appends of one start of that
     * end ({@code incarnation}) from 1; {@code watermark}: every append of that start numbered below it was known to be
     * committed when this one was sent, so the log holds its first copy before this entry (docs/node.md, Exactly once).
     * {@link #NONE} (sequence 0): not stamped (built by hand, tests).
     */
    public record Append(long incarnation, long sequence, long watermark) {
        public static final Append NONE = new Append(0, 0, 0);

        public Append {
            if (sequence < 0 || watermark < 0 || watermark > sequence) {
                throw new IllegalArgumentException("append " + sequence + " with watermark " + watermark
                        + ": the watermark is at most the append's own number");
            }
        }

        public boolean isStamped() {
            return sequence > 0;
        }
    }

    /** Not stamped by a log end yet. */
    public WriteSet(
            long txnId,
            String origin,
            String procedure,
            long[] backDependencies,
            long snapshot,
            Order order,
            List<RowChange> changes,
            CallOutcome outcome,
            org.jgroups.Address caller) {
        this(txnId, origin, procedure, backDependencies, snapshot, order, changes, outcome, caller, Append.NONE);
    }

    /** This write-set as the append {@code sent} carries it. */
    public WriteSet withAppend(Append sent) {
        return new WriteSet(
                txnId, origin, procedure, backDependencies, snapshot, order, changes, outcome, caller, sent);
    }

    /**
     * PSI hands a node's write-sets to the log in the order their transactions committed there, but the log may
     * still take two of them the other way round (a leader change between them): every replica applies an
     * origin's write-sets in {@code commitOrder} order, each after the one named by {@code previous}, alike. The
     * chain is per start of the origin ({@code incarnation}); {@code previous} is -1 for the first of a start.
     */
    public record Order(long incarnation, long commitOrder, long previous) {
        public static final Order NONE = new Order(0, -1, -1);

        public boolean isOrdered() {
            return commitOrder >= 0;
        }
    }

    /** This write-set with its place among its origin's commits. */
    public WriteSet withOrder(Order newOrder) {
        return new WriteSet(
                txnId, origin, procedure, backDependencies, snapshot, newOrder, changes, outcome, caller, append);
    }

    /** Without a caller (tests, and messages that answer nobody). */
    public WriteSet(
            long txnId,
            String origin,
            String procedure,
            long[] backDependencies,
            long snapshot,
            Order order,
            List<RowChange> changes,
            CallOutcome outcome) {
        this(txnId, origin, procedure, backDependencies, snapshot, order, changes, outcome, null);
    }

    /** This write-set with the outcome its origin gives the call. */
    public WriteSet withOutcome(CallOutcome newOutcome) {
        return new WriteSet(
                txnId, origin, procedure, backDependencies, snapshot, order, changes, newOutcome, caller, append);
    }

    /** This write-set with the outcome its origin gives the call of {@code client}. */
    public WriteSet withOutcome(CallOutcome newOutcome, org.jgroups.Address client) {
        return new WriteSet(
                txnId, origin, procedure, backDependencies, snapshot, order, changes, newOutcome, client, append);
    }

    /** A write-set whose place the log alone decides (not PSI-ordered). */
    public WriteSet(
            long txnId,
            String origin,
            String procedure,
            long[] backDependencies,
            long snapshot,
            List<RowChange> changes) {
        this(txnId, origin, procedure, backDependencies, snapshot, Order.NONE, changes, null);
    }

    /** A write-set with its place among its origin's commits and no outcome (tests). */
    public WriteSet(
            long txnId,
            String origin,
            String procedure,
            long[] backDependencies,
            long snapshot,
            Order order,
            List<RowChange> changes) {
        this(txnId, origin, procedure, backDependencies, snapshot, order, changes, null);
    }

    /**
     * One changed row. {@code row} is a JSON object of column → value as PostgreSQL's {@code to_jsonb}
     * writes it: for an insert the whole new row, for an update the primary key plus only the changed
     * columns, for a delete the primary key. For an {@link Operation#ADD} the primary key, the new values of the
     * columns it sets plainly, and for each column it adds to, {@code "+column": delta} (an exact integer or numeric,
     * the new value minus the old one at the origin).
     */
    public record RowChange(String table, Operation operation, String row) {
        public RowChange {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(row, "row");
        }
    }

    /**
     * Each operation travels as its code, which is part of the wire format: never renumber. A node that does not know a
     * code refuses the whole write-set as malformed ("unknown row operation"), so an {@link #ADD} never reaches a node
     * that would take its deltas for values.
     */
    public enum Operation {
        INSERT(0),
        UPDATE(1),
        DELETE(2),
        /**
         * An update that adds to some columns (issue 18, PSI): {@code col = col + delta} for each {@code "+col"} member,
         * plain values for the others. Two of them on one cell commute, so replicas that apply them in different
         * orders end equal.
         */
        ADD(3);

        private static final Operation[] ALL = values();

        private final int code;

        Operation(int code) {
            this.code = code;
        }

        /** The byte that stands for this operation on the wire. */
        int code() {
            return code;
        }

        /** The operation whose wire code is {@code code}, or null if there is none. */
        static Operation ofCode(int code) {
            for (Operation operation : ALL) {
                if (operation.code == code) {
                    return operation;
                }
            }
            return null;
        }
    }

    public WriteSet {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(procedure, "procedure");
        Objects.requireNonNull(order, "order");
        Objects.requireNonNull(append, "append");
        changes = List.copyOf(changes);
    }

    @Override
    public MessageType type() {
        return MessageType.WRITE_SET;
    }

    @Override
    public String describe() {
        return "WRITE_SET transaction " + txnId + " from " + origin + " (" + procedure + ", " + changes.size()
                + " changes)";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(txnId);
        WireCodec.writeString(out, origin);
        WireCodec.writeString(out, procedure);
        WireCodec.writeLongs(out, backDependencies);
        out.writeLong(snapshot);
        out.writeLong(order.incarnation());
        out.writeLong(order.commitOrder());
        out.writeLong(order.previous());
        out.writeInt(changes.size());
        for (RowChange change : changes) {
            WireCodec.writeString(out, change.table());
            out.writeByte(change.operation().code());
            WireCodec.writeString(out, change.row());
        }
        out.writeBoolean(outcome != null);
        if (outcome != null) {
            outcome.writeBody(out);
            org.jgroups.util.Util.writeAddress(caller, out);
        }
        out.writeLong(append.incarnation());
        out.writeLong(append.sequence());
        out.writeLong(append.watermark());
    }

    static WriteSet read(DataInput in) throws IOException {
        long txnId = in.readLong();
        String origin = WireCodec.readString(in);
        String procedure = WireCodec.readString(in);
        long[] dependencies = WireCodec.readLongs(in);
        long snapshot = in.readLong();
        Order order = new Order(in.readLong(), in.readLong(), in.readLong());
        int count = WireCodec.readCount(in, "write-set changes");
        List<RowChange> changes = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            String table = WireCodec.readString(in);
            int code = in.readUnsignedByte();
            Operation operation = Operation.ofCode(code);
            if (operation == null) {
                throw new MalformedMessageException("WRITE_SET: unknown row operation " + code);
            }
            changes.add(new RowChange(table, operation, WireCodec.readString(in)));
        }
        CallOutcome outcome = null;
        org.jgroups.Address caller = null;
        if (in.readBoolean()) {
            outcome = CallOutcome.read(in);
            try {
                caller = org.jgroups.util.Util.readAddress(in);
            } catch (ClassNotFoundException | RuntimeException e) {
                throw new MalformedMessageException("WRITE_SET: unreadable caller address", e);
            }
        }
        long incarnation = in.readLong();
        long sequence = in.readLong();
        long watermark = in.readLong();
        if (sequence < 0 || watermark < 0 || watermark > sequence) {
            throw new MalformedMessageException("WRITE_SET: append " + sequence + " with watermark " + watermark);
        }
        return new WriteSet(
                txnId,
                origin,
                procedure,
                dependencies,
                snapshot,
                order,
                changes,
                outcome,
                caller,
                new Append(incarnation, sequence, watermark));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WriteSet w
                && txnId == w.txnId
                && origin.equals(w.origin)
                && procedure.equals(w.procedure)
                && Arrays.equals(backDependencies, w.backDependencies)
                && snapshot == w.snapshot
                && order.equals(w.order)
                && changes.equals(w.changes)
                && Objects.equals(outcome, w.outcome)
                && Objects.equals(caller, w.caller)
                && append.equals(w.append);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(txnId);
    }

    @Override
    public String toString() {
        return "WriteSet[txn=" + txnId + ", origin=" + origin + ", deps=" + Arrays.toString(backDependencies)
                + ", snapshot=" + snapshot + ", order=" + order + ", append=" + append + ", changes=" + changes.size()
                + "]";
    }
}
