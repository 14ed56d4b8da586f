package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * scheduler → node: the scheduler will not place calls on this node, and why (e.g. its profile differs from the
 * scheduler's: {@link ClusterProfile#differences}). The node stops with that reason rather than wait unused.
 */
public record NodeRefused(String nodeName, String reason) implements Message {
    @Override
    public MessageType type() {
        return MessageType.NODE_REFUSED;
    }

    @Override
    public String describe() {
        return "NODE_REFUSED " + nodeName + ": " + reason;
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        WireCodec.writeString(out, reason);
    }

    static NodeRefused read(DataInput in) throws IOException {
        return new NodeRefused(WireCodec.readString(in), WireCodec.readString(in));
    }
}
