package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** client → scheduler: how many transactions are not yet visible at every node? Answered by {@link DrainStatus}. */
public record DrainQuery(long queryId) implements Message {
    @Override
    public MessageType type() {
        return MessageType.DRAIN_QUERY;
    }

    @Override
    public String describe() {
        return "DRAIN_QUERY " + queryId;
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        out.writeLong(queryId);
    }

    static DrainQuery read(DataInput in) throws IOException {
        return new DrainQuery(in.readLong());
    }
}
