package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.gargamel.common.call.ProcedureCall;

/** client → scheduler. {@code callId} is unique per client connection and comes back in the outcome. */
public record SubmitCall(long callId, ProcedureCall call) implements Message {
    @Override
    public MessageType type() {
        return MessageType.SUBMIT_CALL;
    }

    @Override
    public String describe() {
        return "SUBMIT_CALL call " + callId + " (" + call.procedure() + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(callId);
        WireCodec.writeCall(out, call);
    }

    static SubmitCall read(DataInput in) throws IOException {
        return new SubmitCall(in.readLong(), WireCodec.readCall(in));
    }
}
