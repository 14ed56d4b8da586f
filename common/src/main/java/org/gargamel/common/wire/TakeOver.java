package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;

/**
 * scheduler → every member of the control group: the sender wants to be the active scheduler. Each node appends an
 * {@link EpochClaim} for it to the write-set log; the log's order decides (docs/protocol.md, Scheduler failover).
 */
public record TakeOver() implements Message {
    @Override
    public MessageType type() {
        return MessageType.TAKE_OVER;
    }

    @Override
    public String describe() {
        return "TAKE_OVER";
    }

    @Override
    public void writeBody(DataOutput out) {
        // The claimant is the sender.
    }

    static TakeOver read(DataInput in) {
        return new TakeOver();
    }
}
