package org.gargamel.common.wire;

import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.IOException;

/**
 * node → scheduler: the write-set log made this scheduler the active one, with {@code epoch} (the index of its
 * {@link EpochClaim} entry). Every node sends it once it has applied the claim. {@code predecessorEpoch}: the epoch of
 * the scheduler it succeeds at its site, {@link #NO_PREDECESSOR} if it is its site's first, {@link #UNKNOWN} if this
 * node cannot tell (it started from a snapshot taken after the claim): a site scheduler that succeeds another joins the
 * schedule log as a new member (docs/multisite.md).
 */
public record EpochGranted(String nodeName, long epoch, long predecessorEpoch) implements Message {
    public static final long NO_PREDECESSOR = 0;
    public static final long UNKNOWN = -1;

    /** A grant that says nothing of a predecessor (a single site, tests). */
    public EpochGranted(String nodeName, long epoch) {
        this(nodeName, epoch, NO_PREDECESSOR);
    }

    /** Whether this scheduler takes over from an earlier one of its site (or may: the node cannot tell). */
    public boolean succeedsAnother() {
        return predecessorEpoch != NO_PREDECESSOR;
    }

    @Override
    public MessageType type() {
        return MessageType.EPOCH_GRANTED;
    }

    @Override
    public String describe() {
        return "EPOCH_GRANTED " + epoch + " by " + nodeName
                + (predecessorEpoch == NO_PREDECESSOR ? "" : " after epoch " + predecessorEpoch);
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, nodeName);
        out.writeLong(epoch);
        out.writeLong(predecessorEpoch);
    }

    static EpochGranted read(DataInputStream in) throws IOException {
        String nodeName = WireCodec.readString(in);
        long epoch = in.readLong();
        // The predecessor is the optional last field (a grant of a node from before sites had none).
        long predecessor = in.available() > 0 ? in.readLong() : NO_PREDECESSOR;
        if (predecessor < UNKNOWN || (predecessor > NO_PREDECESSOR && predecessor >= epoch)) {
            throw new MalformedMessageException(
                    "EPOCH_GRANTED: predecessor epoch " + predecessor + " is not before epoch " + epoch);
        }
        return new EpochGranted(nodeName, epoch, predecessor);
    }
}
