package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * A site's write-set log entry shipped into another site's write-set log (site-local acknowledgement,
 * docs/multisite.md): {@code entry} (a write-set or an ABANDON decision of site {@code origin}) stood at
 * {@code index} in {@code origin}'s log, and the previous entry shipped from there stood at {@code previous} (0 for the
 * first). A receiving site applies its shipped entries only in that chain: one whose {@code previous} is not the last
 * one it applied is a copy sent twice, or comes after a gap, and is skipped in the same place of the log at every
 * node of the site.
 */
public record Shipped(String origin, long previous, long index, Message entry) implements Message {
    public Shipped {
        if (origin == null || origin.isBlank()) {
            throw new IllegalArgumentException("a shipped entry needs its origin site's name");
        }
        if (previous < 0 || index <= previous) {
            throw new IllegalArgumentException(
                    "a shipped entry's index " + index + " must come after the previous one's, " + previous);
        }
        if (!isShippable(entry)) {
            throw new IllegalArgumentException("only a write-set or an ABANDON decision is shipped between sites, got "
                    + (entry == null ? "nothing" : entry.type()));
        }
    }

    /** Whether a site's own log entry is shipped to the other sites: its write-sets and its ABANDON decisions. */
    public static boolean isShippable(Message entry) {
        return entry instanceof WriteSet || entry instanceof Abandon;
    }

    @Override
    public MessageType type() {
        return MessageType.SHIPPED;
    }

    @Override
    public String describe() {
        return "SHIPPED from " + origin + " (entry " + index + ", " + entry.describe() + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, origin);
        out.writeLong(previous);
        out.writeLong(index);
        byte[] inner = WireCodec.encode(entry);
        out.writeInt(inner.length);
        out.write(inner);
    }

    static Shipped read(DataInput in) throws IOException {
        String origin = WireCodec.readString(in);
        long previous = in.readLong();
        long index = in.readLong();
        int length = WireCodec.readCount(in, "shipped entry length");
        byte[] inner = new byte[length];
        in.readFully(inner);
        return new Shipped(origin, previous, index, WireCodec.decode(inner));
    }
}
