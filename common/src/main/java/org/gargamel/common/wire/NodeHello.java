package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * node → scheduler, on joining and on every view change: the node's name (stable across restarts, e.g.
 * {@code node-1}) and how many workers it runs. The scheduler addresses workers as (node, index).
 */
public record NodeHello(String nodeName, int workers) implements Message {
    @Override
    public MessageType type() {
        return MessageType.NODE_HELLO;
    }

    @Override
    public String describe() {
        return "NODE_HELLO " + nodeName + " (" + workers + " workers)";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        out.writeInt(workers);
    }

    static NodeHello read(DataInput in) throws IOException {
        return new NodeHello(WireCodec.readString(in), in.readInt());
    }
}
