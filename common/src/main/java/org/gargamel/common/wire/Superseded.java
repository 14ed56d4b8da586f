package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * node → scheduler: the write-set log has made another scheduler active, at {@code epoch}, after this one; this one is
 * never active again (docs/protocol.md, Scheduler failover). Sent to a scheduler that is still alive after being
 * superseded (it was cut off, not dead): when it places a call, claims again, or is the oldest scheduler of a view. It
 * stops, so that it leaves the group and every member follows the active one; started again, it stands by.
 */
public record Superseded(String nodeName, long epoch) implements Message {
    @Override
    public MessageType type() {
        return MessageType.SUPERSEDED;
    }

    @Override
    public String describe() {
        return "SUPERSEDED by epoch " + epoch + " (from " + nodeName + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        out.writeLong(epoch);
    }

    static Superseded read(DataInput in) throws IOException {
        return new Superseded(WireCodec.readString(in), in.readLong());
    }
}
