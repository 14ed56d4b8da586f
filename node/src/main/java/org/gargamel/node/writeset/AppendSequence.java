package org.gargamel.node.writeset;

import java.security.SecureRandom;
import java.util.TreeSet;
import org.gargamel.common.wire.WriteSet;

/**
 * Numbers this start's write-set appends and knows which of them are not committed yet, so each write-set carries
 * {@link WriteSet.Append}: its number and the watermark below which every append of this start was committed when it
 * was sent. A replica that has met the watermark W of this start knows the log held the first copy of every append
 * numbered below W before that entry (an entry sent after another was committed lies after it in the log: the leader
 * that appends it holds every committed entry), so a later entry numbered below W is a copy sent again, whatever lies
 * between (docs/node.md, Exactly once; {@code MetWriteSets}). Thread-safe: workers append at once.
 */
final class AppendSequence {
    private final long incarnation;
    private long next = 1;
    /** Appends sent and not known to be committed (a failed one stays: its node stops). */
    private final TreeSet<Long> open = new TreeSet<>();

    AppendSequence() {
        this(new SecureRandom().nextLong());
    }

    AppendSequence(long incarnation) {
        this.incarnation = incarnation;
    }

    /** The stamp of a new append, open until {@link #committed}. */
    synchronized WriteSet.Append open() {
        long sequence = next++;
        open.add(sequence);
        return new WriteSet.Append(incarnation, sequence, open.first());
    }

    /** Append {@code sequence} is committed (one of its copies is in the log). */
    synchronized void committed(long sequence) {
        open.remove(sequence);
    }
}
