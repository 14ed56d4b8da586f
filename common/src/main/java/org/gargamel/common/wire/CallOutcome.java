package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The one outcome of a call (DESIGN.md §2), sent to the client by the node that ran it, or by the scheduler
 * when it rejects the call. {@code txnId} is -1 when the call was rejected before it got one.
 *
 * @param result  the procedure's result as text (committed), else null
 * @param sqlState the SQLSTATE of the procedure's error (user-aborted), else null
 * @param message  the error or rejection reason, else null
 * @param wrote    an update transaction committed: its write-set is in the log, and the client's session waits for it
 *                 in its later calls (read-only calls, aborts and rejections leave the session as it was)
 */
public record CallOutcome(
        long callId, long txnId, Status status, String result, String sqlState, String message, boolean wrote)
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

    /** An update transaction committed. */
    public static CallOutcome committed(long callId, long txnId, String result) {
        return new CallOutcome(callId, txnId, Status.COMMITTED, result, null, null, true);
    }

    /** A read-only call committed: nothing for the session to wait for. */
    public static CallOutcome committedReadOnly(long callId, long txnId, String result) {
        return new CallOutcome(callId, txnId, Status.COMMITTED, result, null, null, false);
    }

    public static CallOutcome userAborted(long callId, long txnId, String sqlState, String message) {
        return new CallOutcome(callId, txnId, Status.USER_ABORTED, null, sqlState, message, false);
    }

    public static CallOutcome rejected(long callId, long txnId, String reason) {
        return new CallOutcome(callId, txnId, Status.REJECTED, null, null, reason, false);
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
    }

    static CallOutcome read(DataInput in) throws IOException {
        long callId = in.readLong();
        long txnId = in.readLong();
        int code = in.readUnsignedByte();
        Status status = Status.ofCode(code);
        if (status == null) {
            throw new MalformedMessageException("CALL_OUTCOME: unknown status " + code);
        }
        return new CallOutcome(
                callId,
                txnId,
                status,
                WireCodec.readNullableString(in),
                WireCodec.readNullableString(in),
                WireCodec.readNullableString(in),
                in.readBoolean());
    }
}
