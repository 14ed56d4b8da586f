package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.gargamel.common.call.ProcedureCall;

/**
 * client → scheduler. {@code callId} is unique per client connection and comes back in the outcome.
 * {@code after} is the last update transaction the client's session was told committed (0: none): the call runs only
 * where that transaction is visible, so a session reads its own writes whichever replica runs the call
 * (docs/protocol.md, Sessions).
 */
public record SubmitCall(long callId, ProcedureCall call, long after) implements Message {
    /** A call with no session before it. */
    public SubmitCall(long callId, ProcedureCall call) {
        this(callId, call, 0);
    }

    @Override
    public MessageType type() {
        return MessageType.SUBMIT_CALL;
    }

    @Override
    public String describe() {
        return "SUBMIT_CALL call " + callId + " (" + call.procedure() + (after == 0 ? "" : ", after " + after) + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(callId);
        WireCodec.writeCall(out, call);
        out.writeLong(after);
    }

    static SubmitCall read(DataInput in) throws IOException {
        long callId = in.readLong();
        ProcedureCall call = WireCodec.readCall(in);
        long after = in.readLong();
        if (after < 0) {
            throw new MalformedMessageException("SUBMIT_CALL: negative session transaction " + after);
        }
        return new SubmitCall(callId, call, after);
    }
}
