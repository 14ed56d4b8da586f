package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * node → scheduler, on joining and on every view change: the node's name (stable across restarts, e.g.
 * {@code node-1}), how many workers it runs, and its {@link ClusterProfile} (a node whose profile differs from the
 * scheduler's is refused: {@link NodeRefused}). The scheduler addresses workers as (node, index).
 *
 * <p>Joining takes two: first {@code ready} false (the scheduler counts the node for garbage collection from then on,
 * but places no call on it), then, once the node has applied every write-set logged before that, {@code ready} true.
 * Without the first step a transaction the scheduler collected just before the node joined (every other node had it)
 * could be missing at the node when a conflicting call reaches it (docs/protocol.md, Membership).
 */
public record NodeHello(String nodeName, int workers, boolean ready, ClusterProfile profile) implements Message {

    @Override
    public MessageType type() {
        return MessageType.NODE_HELLO;
    }

    @Override
    public String describe() {
        return "NODE_HELLO " + nodeName + " (" + workers + " workers" + (ready ? "" : ", joining") + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        out.writeInt(workers);
        out.writeBoolean(ready);
        profile.write(out);
    }

    static NodeHello read(DataInput in) throws IOException {
        return new NodeHello(WireCodec.readString(in), in.readInt(), in.readBoolean(), ClusterProfile.read(in));
    }
}
