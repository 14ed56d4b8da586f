package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * A mark a node appends to the write-set log and waits to apply (docs/node.md, Start-up): once its own mark comes back
 * in the log's order, the node has applied every entry committed before it, so its replica is as current as the
 * cluster's was when the mark was appended. A restarted node serves calls only after that.
 *
 * @param origin the node that appended it
 * @param nonce  tells this start's mark from an earlier start's
 */
public record LogMark(String origin, long nonce) implements Message {
    @Override
    public MessageType type() {
        return MessageType.LOG_MARK;
    }

    @Override
    public String describe() {
        return "LOG_MARK of " + origin + " (" + nonce + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, origin);
        out.writeLong(nonce);
    }

    static LogMark read(DataInput in) throws IOException {
        return new LogMark(WireCodec.readString(in), in.readLong());
    }
}
