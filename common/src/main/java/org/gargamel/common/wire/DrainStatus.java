package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * scheduler → client: {@code inFlight} transactions are scheduled but not yet visible at all of the
 * {@code nodes} known nodes. Zero means every replica has applied everything scheduled so far.
 */
public record DrainStatus(long queryId, long inFlight, int nodes) implements Message {
    @Override
    public MessageType type() {
        return MessageType.DRAIN_STATUS;
    }

    @Override
    public String describe() {
        return "DRAIN_STATUS " + queryId;
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(queryId);
        out.writeLong(inFlight);
        out.writeInt(nodes);
    }

    static DrainStatus read(DataInput in) throws IOException {
        return new DrainStatus(in.readLong(), in.readLong(), in.readInt());
    }
}
