package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * node → scheduler: the write-set log made this scheduler the active one, with {@code epoch} (the index of its
 * {@link EpochClaim} entry). Every node sends it once it has applied the claim.
 */
public record EpochGranted(String nodeName, long epoch) implements Message {
    @Override
    public MessageType type() {
        return MessageType.EPOCH_GRANTED;
    }

    @Override
    public String describe() {
        return "EPOCH_GRANTED " + epoch + " by " + nodeName;
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        out.writeLong(epoch);
    }

    static EpochGranted read(DataInput in) throws IOException {
        return new EpochGranted(WireCodec.readString(in), in.readLong());
    }
}
