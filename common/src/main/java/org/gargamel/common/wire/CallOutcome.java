package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The one outcome of a call (DESIGN.md §2), sent to the client by the node that ran it, or by the scheduler
 * when it rejects the call. {@code txnId} is -1 when the call was rejected before it got one.
 *
 * @param result  the procedure's result as one line of text (committed: {@link ResultRows#summary()}), else null
 * @param sqlState the SQLSTATE of the procedure's error (user-aborted), else null
 * @param message  the error or rejection reason, else null
 * @param wrote    an update transaction committed: its write-set is in the log, and the client's session waits for it
 *                 in its later calls (read-only calls, aborts and rejections leave the session as it was)
 * @param rows     every row the procedure returned, with its columns (committed by a node), else null
 * @param error    the fields of the procedure's error as PostgreSQL reported them (user-aborted), else null
 */
public record CallOutcome(
        long callId,
        long txnId,
        Status status,
        String result,
        String sqlState,
        String message,
        boolean wrote,
        ResultRows rows,
        ErrorFields error)
        implements Message {

    /** Each status travels as its code, which is part of the wire format: never renumber. */
    public enum Status {
        COMMITTED(0),
        USER_ABORTED(1),
        REJECTED(2);

        private static final Status[] ALL = values();

        private final int code;

        Status(int code) {
            this.code = code;
        }

        /** The byte that stands for this status on the wire. */
        int code() {
            return code;
        }

        /** The status whose wire code is {@code code}, or null if there is none. */
        static Status ofCode(int code) {
            for (Status status : ALL) {
                if (status.code == code) {
                    return status;
                }
            }
            return null;
        }
    }

    /**
     * A procedure's error as PostgreSQL's ErrorResponse gave it: the primary message (without pgjdbc's
     * {@code ERROR: } prefix), and the optional detail and hint (null when absent), and the error's position in the
     * statement's text (1-based characters, an ad-hoc query's; 0: none).
     */
    public record ErrorFields(String message, String detail, String hint, int position) {
        public ErrorFields {
            if (position < 0) {
                throw new IllegalArgumentException("error position " + position);
            }
        }

        /** Without a position. */
        public ErrorFields(String message, String detail, String hint) {
            this(message, detail, hint, 0);
        }

        void write(DataOutput out) throws IOException {
            WireCodec.writeNullableString(out, message);
            WireCodec.writeNullableString(out, detail);
            WireCodec.writeNullableString(out, hint);
            out.writeInt(position);
        }

        static ErrorFields read(DataInput in) throws IOException {
            return new ErrorFields(
                    WireCodec.readNullableString(in),
                    WireCodec.readNullableString(in),
                    WireCodec.readNullableString(in),
                    in.readInt());
        }
    }

    /** Without rows or error fields (a rejection, or an outcome made by hand). */
    public CallOutcome(
            long callId, long txnId, Status status, String result, String sqlState, String message, boolean wrote) {
        this(callId, txnId, status, result, sqlState, message, wrote, null, null);
    }

    /** An update transaction committed. */
    public static CallOutcome committed(long callId, long txnId, String result) {
        return new CallOutcome(callId, txnId, Status.COMMITTED, result, null, null, true);
    }

    /** An update transaction committed, with the rows the procedure returned; {@link #result()} summarises them. */
    public static CallOutcome committed(long callId, long txnId, ResultRows rows) {
        return new CallOutcome(callId, txnId, Status.COMMITTED, rows.summary(), null, null, true, rows, null);
    }

    /** A read-only call committed: nothing for the session to wait for. */
    public static CallOutcome committedReadOnly(long callId, long txnId, String result) {
        return new CallOutcome(callId, txnId, Status.COMMITTED, result, null, null, false);
    }

    /** A read-only call committed, with the rows the procedure returned. */
    public static CallOutcome committedReadOnly(long callId, long txnId, ResultRows rows) {
        return new CallOutcome(callId, txnId, Status.COMMITTED, rows.summary(), null, null, false, rows, null);
    }

    public static CallOutcome userAborted(long callId, long txnId, String sqlState, String message) {
        return new CallOutcome(callId, txnId, Status.USER_ABORTED, null, sqlState, message, false);
    }

    /** User-aborted, with the error's fields as PostgreSQL reported them (null if unknown). */
    public static CallOutcome userAborted(long callId, long txnId, String sqlState, String message, ErrorFields error) {
        return new CallOutcome(callId, txnId, Status.USER_ABORTED, null, sqlState, message, false, null, error);
    }

    public static CallOutcome rejected(long callId, long txnId, String reason) {
        return new CallOutcome(callId, txnId, Status.REJECTED, null, null, reason, false);
    }

    /** This outcome for another call id (a call answered from the outcome its first run left in the log). */
    public CallOutcome forCall(long otherCallId) {
        return new CallOutcome(otherCallId, txnId, status, result, sqlState, message, wrote, rows, error);
    }

    @Override
    public MessageType type() {
        return MessageType.CALL_OUTCOME;
    }

    @Override
    public String describe() {
        return "CALL_OUTCOME call " + callId + " (" + status + (txnId < 0 ? "" : ", transaction " + txnId) + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(callId);
        out.writeLong(txnId);
        out.writeByte(status.code());
        WireCodec.writeNullableString(out, result);
        WireCodec.writeNullableString(out, sqlState);
        WireCodec.writeNullableString(out, message);
        out.writeBoolean(wrote);
        out.writeBoolean(rows != null);
        if (rows != null) {
            rows.write(out);
        }
        out.writeBoolean(error != null);
        if (error != null) {
            error.write(out);
        }
    }

    static CallOutcome read(DataInput in) throws IOException {
        long callId = in.readLong();
        long txnId = in.readLong();
        int code = in.readUnsignedByte();
        Status status = Status.ofCode(code);
        if (status == null) {
            throw new MalformedMessageException("CALL_OUTCOME: unknown status " + code);
        }
        String result = WireCodec.readNullableString(in);
        String sqlState = WireCodec.readNullableString(in);
        String message = WireCodec.readNullableString(in);
        boolean wrote = in.readBoolean();
        ResultRows rows = in.readBoolean() ? ResultRows.read(in) : null;
        ErrorFields error = in.readBoolean() ? ErrorFields.read(in) : null;
        return new CallOutcome(callId, txnId, status, result, sqlState, message, wrote, rows, error);
    }
}
