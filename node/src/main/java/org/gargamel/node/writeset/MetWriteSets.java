package org.gargamel.node.writeset;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.gargamel.common.wire.WriteSet;

/**
 * Which write-sets the log has carried, to tell the first copy of an entry from a copy of it sent again (an append
 * not committed within 3 s is sent again: RaftLog): every replica ignores the second copy, alike, however far it lies
 * from the first (docs/node.md, Exactly once). Decided in log order on the apply loop's thread; a snapshot of the log
 * carries it ({@link #writeTo}), so a node restarted from its log, handed a snapshot, or rebuilt from a peer decides as
 * the others did.
 *
 * <p>A write-set is known by its {@link WriteSet.Append}: its origin, the start of its origin's log end
 * (incarnation), its number among that start's appends, and the watermark below which every append of that start was
 * committed when it was sent. The invariant, per start, in {@link #firstCopy} alone: every append of the start numbered
 * below {@code floor} (the highest watermark met) has been met, and {@code above} holds those met at or above it. It
 * holds because an entry sent after another was committed lies after it in the log (the leader that appends it holds
 * every committed entry; an entry a deposed leader appended at an index already committed is never committed). So a
 * write-set is a copy if its number is below its start's floor or in {@code above}, and nothing met below the floor
 * needs remembering. Guarded by {@code MetWriteSetsTest} and
 * {@code WriteSetLogTest.aCopyOfAWriteSetFarBehindItsFirstIsIgnoredByEveryReplica}.
 *
 * <p>Bounded: per start, the appends it sent while its oldest uncommitted one was open (an append either commits or
 * fails within 60 s, and a failed one stops its node); per origin, its {@value #STARTS} latest starts. A copy sent by
 * a start of its node {@value #STARTS} starts ago would be taken for a first copy: its process, and every send of it,
 * ended that many restarts before. Unstamped write-sets (built by hand, tests) are never taken for copies.
 */
public final class MetWriteSets {
    /** Starts kept per origin, the latest included. */
    static final int STARTS = 16;

    /** What the log carried from one start of an origin's log end. */
    private static final class Start {
        /** Every append of this start numbered below it has been met. */
        long floor;
        /** Appends of this start met, numbered at or above the floor. */
        final TreeSet<Long> above = new TreeSet<>();
    }

    /** By origin: its starts met, by incarnation, the latest met last. */
    private final Map<String, Map<Long, Start>> origins = new HashMap<>();

    /**
     * In log order: whether {@code writeSet} is the first copy of its append met here (then it is recorded), or a copy
     * sent again (to be ignored). An unstamped write-set is always a first copy.
     */
    public synchronized boolean firstCopy(WriteSet writeSet) {
        WriteSet.Append append = writeSet.append();
        if (!append.isStamped()) {
            return true;
        }
        Start start = starts(writeSet.origin()).computeIfAbsent(append.incarnation(), incarnation -> new Start());
        if (append.sequence() < start.floor || !start.above.add(append.sequence())) {
            return false;
        }
        if (append.watermark() > start.floor) {
            start.floor = append.watermark();
            start.above.headSet(start.floor).clear();
        }
        return true;
    }

    private Map<Long, Start> starts(String origin) {
        return origins.computeIfAbsent(origin, name -> new LinkedHashMap<>(4, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Start> eldest) {
                return size() > STARTS;
            }
        });
    }

    /** Appends remembered one by one (the bound of the class comment), for tests. */
    synchronized int remembered() {
        int count = 0;
        for (Map<Long, Start> starts : origins.values()) {
            for (Start start : starts.values()) {
                count += start.above.size();
            }
        }
        return count;
    }

    /** Forgets everything (a snapshot that does not carry it). */
    public synchronized void clear() {
        origins.clear();
    }

    /** For a snapshot of the log: what it carried up to there. */
    public synchronized void writeTo(DataOutput out) throws IOException {
        out.writeInt(origins.size());
        for (Map.Entry<String, Map<Long, Start>> origin : new TreeMap<>(origins).entrySet()) {
            out.writeUTF(origin.getKey());
            out.writeInt(origin.getValue().size());
            for (Map.Entry<Long, Start> entry : origin.getValue().entrySet()) {
                Start start = entry.getValue();
                out.writeLong(entry.getKey());
                out.writeLong(start.floor);
                out.writeInt(start.above.size());
                for (long sequence : start.above) {
                    out.writeLong(sequence);
                }
            }
        }
    }

    /** From a snapshot ({@link #writeTo}): replaces what is here. */
    public synchronized void readFrom(DataInput in) throws IOException {
        origins.clear();
        int count = in.readInt();
        for (int i = 0; i < count; i++) {
            Map<Long, Start> starts = starts(in.readUTF());
            int startCount = in.readInt();
            for (int j = 0; j < startCount; j++) {
                long incarnation = in.readLong();
                Start start = new Start();
                start.floor = in.readLong();
                int above = in.readInt();
                for (int k = 0; k < above; k++) {
                    start.above.add(in.readLong());
                }
                starts.put(incarnation, start);
            }
        }
    }
}
