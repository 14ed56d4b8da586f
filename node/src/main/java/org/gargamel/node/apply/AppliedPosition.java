package org.gargamel.node.apply;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.node.writeset.ReplicaState;

/**
 * The replica's position in the write-set log (docs/node.md, Restart), owned by the apply loop's thread: the index
 * recorded in the database ({@code replica_state.applied_index}), how far the log is handled here, the transactions
 * reflected ahead of the recorded index ({@code committed_ahead}), and the entries taken but not applied yet, whichever
 * applier took them (a commit-order chain waiting for its predecessor, a group not yet committed, a parallel applier):
 * they are <em>held</em>.
 *
 * <p>The rule, in {@link #after} alone: a recorded position never passes a held entry, so every entry up to the
 * recorded index is reflected in the database; an entry applied past it is recorded in committed_ahead, and that row
 * is forgotten only in a transaction that records a position passing its entry. After a restart the log is replayed:
 * an entry up to the recorded index or in committed_ahead is not applied again. So no entry is applied twice and none
 * is skipped ({@code AppliedPositionTest}).
 */
final class AppliedPosition {
    /** Entries handled without a database transaction before their position is written anyway. */
    static final int POSITION_LAG = 1_000;

    /** The applied index in the database (read by other threads: {@link #persisted()}). */
    private volatile long persistedIndex;
    /** Every entry up to this index is handled (applied, settled, decided or held). */
    private long handledIndex;
    /** Entries handled since the position was last recorded. */
    private long unpersisted;

    /** Reflected here ahead of the persisted position (ReplicaState.committed_ahead) and not met again, by txn. */
    private final Set<Long> committedAhead;
    /** Rows of committed_ahead whose entries are handled: forgotten once the position passes them. */
    private final ArrayDeque<Ahead> forgettable = new ArrayDeque<>();
    /** Log indexes of entries taken but not applied yet: the position cannot pass them. */
    private final TreeSet<Long> held = new TreeSet<>();

    /** The position as the database records it at start: its applied index and committed_ahead rows. */
    AppliedPosition(long persistedIndex, Set<Long> committedAhead) {
        this.persistedIndex = persistedIndex;
        this.handledIndex = persistedIndex;
        this.committedAhead = new HashSet<>(committedAhead);
    }

    /** The last log index reflected in the database. Any thread. */
    long persisted() {
        return persistedIndex;
    }

    /** Whether entry {@code index} is reflected already by the recorded position (a replay after a restart). */
    boolean replayed(long index) {
        return index <= persistedIndex;
    }

    /**
     * The position a transaction applying entry {@code index} may record: every entry handled so far and this one,
     * but not a held one nor anything after it; never less than what is recorded already.
     */
    long after(long index) {
        long through = held.isEmpty() ? Math.max(handledIndex, index) : held.first() - 1;
        return Math.max(persistedIndex, through);
    }

    /** Entry {@code index} is taken but not applied: the position stays before it until {@link #release}. */
    void hold(long index) {
        held.add(index);
    }

    /** Entry {@code index} is applied (or dropped): the position may pass it. */
    void release(long index) {
        held.remove(index);
    }

    /** Entry {@code index} is handled (applied, decided, or taken and held). */
    void handled(long index) {
        if (index > handledIndex) {
            handledIndex = index;
        }
        unpersisted++;
    }

    /** How far the log is handled. */
    long handledIndex() {
        return handledIndex;
    }

    /** Enough entries were handled since the position was recorded that it is recorded now. */
    boolean due() {
        return unpersisted >= POSITION_LAG;
    }

    /** Something is to record while the loop is idle: handled entries, or committed_ahead rows to forget. */
    boolean pending() {
        return unpersisted > 0 || !forgettable.isEmpty();
    }

    /**
     * Whether {@code txn} was recorded in committed_ahead when this process started and not met in the log since; if
     * so it is met now, and not again.
     */
    boolean takeCommittedAhead(long txn) {
        return committedAhead.remove(txn);
    }

    /** Whether {@code txn} is reflected here ahead of the position recorded at start, and not met in the log yet. */
    boolean isCommittedAhead(long txn) {
        return committedAhead.contains(txn);
    }

    /** {@code txn} (entry {@code index}) has a committed_ahead row: forgotten once a recorded position passes it. */
    void committedAhead(long txn, long index) {
        forgettable.add(new Ahead(txn, index));
    }

    /** The committed_ahead rows a position write of {@code position} passes (forgotten when it is done). */
    private List<Long> passed(long position) {
        List<Long> txns = new ArrayList<>();
        for (Ahead ahead : forgettable) {
            if (ahead.index() <= position) {
                txns.add(ahead.txn());
            }
        }
        return txns;
    }

    /**
     * What the transaction applying {@code txn} (entry {@code index}) alone records: the position {@link #after} it,
     * its committed_ahead row if an earlier entry is held, and the forgetting of the rows that position passes.
     */
    Write forOne(long index, long txn) {
        long position = after(index);
        List<Ahead> ahead = position < index ? List.of(new Ahead(txn, index)) : List.of();
        return new Write(position, ahead, passed(position));
    }

    /**
     * What the transaction applying {@code members} (released, in log order) together records: the position after the
     * last, a committed_ahead row for each member past it, and the forgetting of the rows it passes.
     */
    Write forGroup(List<Ahead> members) {
        long position = after(members.get(members.size() - 1).index());
        List<Ahead> ahead = new ArrayList<>();
        for (Ahead member : members) {
            if (member.index() > position) {
                ahead.add(member);
            }
        }
        return new Write(position, ahead, passed(position));
    }

    /**
     * What a parallel applier's transaction applying {@code txn} (entry {@code index}, taken now) records: the position
     * if no earlier entry is held (then no other applying transaction writes it: at most one at a time updates the
     * position row), else only its committed_ahead row.
     */
    Write forParallel(long index, long txn) {
        long position = after(index);
        if (position >= index) {
            return new Write(position, List.of(), passed(position));
        }
        return new Write(-1, List.of(new Ahead(txn, index)), List.of());
    }

    /**
     * What a transaction of its own records now (the position, the rows it forgets), or null if there is nothing new
     * to record (then nothing is pending either).
     */
    Write flush() {
        long position = after(handledIndex);
        List<Long> passed = passed(position);
        if (position <= persistedIndex && passed.isEmpty()) {
            unpersisted = 0;
            return null;
        }
        return new Write(position, List.of(), passed);
    }

    /** {@code write} is committed: its committed_ahead rows are forgotten once passed; its position is recorded. */
    void committed(Write write) {
        forgettable.addAll(write.ahead());
        if (write.writesPosition()) {
            persisted(write.position());
        }
    }

    /** The database now records {@code position}: the committed_ahead rows it passes are gone. */
    private void persisted(long position) {
        persistedIndex = Math.max(persistedIndex, position);
        forgettable.removeIf(ahead -> ahead.index() <= position);
        unpersisted = 0;
    }

    /** A transaction reflected here ahead of the recorded position, and its entry's index. */
    record Ahead(long txn, long index) {}

    /**
     * What one transaction records besides its changes: the applied index {@code position} (none if negative), the
     * committed_ahead rows of {@code ahead}, and the deletion of those of {@code passed}.
     */
    record Write(long position, List<Ahead> ahead, List<Long> passed) {
        /** Records nothing (a write-set with no changes). */
        static final Write NONE = new Write(-1, List.of(), List.of());

        boolean writesPosition() {
            return position >= 0;
        }

        /** What the transaction records in the database ({@link ReplicaState}), after the changes. */
        ReplicaState.Bookkeeping bookkeeping() {
            List<Long> txns = new ArrayList<>(ahead.size());
            for (Ahead row : ahead) {
                txns.add(row.txn());
            }
            return new ReplicaState.Bookkeeping(position, txns, passed);
        }
    }

    /** A new write-set log for this replica: its position starts again from 0, with nothing ahead. */
    void restartAtZero() {
        persistedIndex = 0;
        handledIndex = 0;
        committedAhead.clear();
        forgettable.clear();
        unpersisted = 0;
    }
}
