package org.gargamel.node.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.ReplicaState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's applier (DESIGN.md §5): takes the write-set log's committed entries in log order and applies the other
 * replicas' write-sets, each once its back-dependencies are visible here. Its own write-sets decide its waiting
 * transactions (SI commits in the log's order; round-robin certifies). ABANDON decisions settle a departed node's
 * unreported transactions. A write-set that cannot be applied means this replica would diverge: that is a
 * {@link FatalException} and the node stops.
 *
 * <p>Position (docs/node.md, Restart). Every transaction that applies a write-set also records the replica's applied
 * index (ReplicaState): all entries up to it are reflected in this database. After a restart the log is replayed from
 * its first entry: entries up to the applied index, and those recorded as committed ahead of it, only rebuild what
 * this process keeps in memory (visibility, settled transactions, certification, commit-order chains); the others
 * are applied. So no entry is applied twice and none is missed.
 *
 * <p>Order. PSI write-sets of one origin are applied in the origin's commit order ({@link WriteSet.Order}): one whose
 * predecessor has not come yet waits, and the later entries go on meanwhile. All replicas do the same, since they see
 * the same log.
 */
public final class ApplyLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ApplyLoop.class);
    /** Entries handled without a database transaction before their position is written anyway. */
    private static final int POSITION_LAG = 1_000;

    /**
     * A committed log entry ({@code logId}: the log's identity, with the first entry only); or, with no message, a
     * request to record the position now (before a snapshot).
     */
    private record Entry(Message message, long index, String logId, CompletableFuture<Void> flushed) {
        Entry(Message message, long index, String logId) {
            this(message, index, logId, null);
        }
    }

    /** A transaction reflected here ahead of the persisted position, and its entry's index. */
    private record Ahead(long txn, long index) {}

    private record ChainKey(String origin, long incarnation) {}

    /** One origin's PSI write-sets of one start, applied in their commit order. */
    private static final class Chain {
        long last = -1;
        final Map<Long, Entry> waitingByPrevious = new HashMap<>();
    }

    private final String node;
    private final Connection connection;
    private final WriteSetApplier applier;
    private final Visibility visibility;
    private final OwnTransactions own;
    /** Round-robin only, else null. */
    private final Certification certification;

    private final ProgressReporter progress;
    private final NodeStatistics statistics;
    private final LinkedBlockingQueue<Entry> delivered = new LinkedBlockingQueue<>();
    /**
     * Transactions settled as done with no effect ({@link Abandon}) before their write-set was delivered; a write-set
     * of theirs delivered later is discarded, in the same place of the log at every node.
     */
    private final Set<Long> abandoned = new HashSet<>();

    private final Map<ChainKey, Chain> chains = new HashMap<>();
    /** Log indexes of write-sets waiting for their predecessor in their chain: the position cannot pass them. */
    private final TreeSet<Long> waitingIndexes = new TreeSet<>();
    /** Reflected here ahead of the persisted position (ReplicaState.committed_ahead), by transaction. */
    private final Set<Long> committedAhead;
    /** Rows of committed_ahead whose entries are handled: forgotten once the position passes them. */
    private final java.util.ArrayDeque<Ahead> forgettable = new java.util.ArrayDeque<>();

    private final CompletableFuture<Long> markApplied = new CompletableFuture<>();
    /** The log this replica reads began at a snapshot: the commit-order chains before it are unknown. */
    private volatile boolean startedFromSnapshot;

    private volatile long markNonce = Long.MIN_VALUE;
    /** The applied index in the database. */
    private long persistedIndex;
    /** Every entry up to this index is handled (applied, settled or decided). */
    private long handledIndex;

    private long unpersisted;

    public ApplyLoop(
            String node,
            Connection connection,
            Visibility visibility,
            OwnTransactions own,
            Certification certification,
            ProgressReporter progress,
            NodeStatistics statistics)
            throws SQLException {
        this.node = node;
        this.connection = connection;
        this.applier = new WriteSetApplier(connection);
        this.visibility = visibility;
        this.own = own;
        this.certification = certification;
        this.progress = progress;
        this.statistics = statistics;
        this.persistedIndex = ReplicaState.appliedIndex(connection);
        this.handledIndex = persistedIndex;
        this.committedAhead = ReplicaState.committedAhead(connection);
        connection.commit();
    }

    /** The log's entries start after a snapshot (LogStateMachine): chains already under way start where met. */
    public void startsFromSnapshot() {
        startedFromSnapshot = true;
    }

    /** The last log index reflected in this replica's database. */
    public synchronized long persistedIndex() {
        return persistedIndex;
    }

    /** The log committed {@code message} at {@code index}. jgroups-raft's thread, in log order; never blocks. */
    public void deliver(Message message, long index, String logId) {
        delivered.add(new Entry(message, index, logId));
    }

    /**
     * Waits until the log entry {@link LogMark} with {@code nonce} from this node is applied: then this replica
     * reflects every entry committed before it. Returns its index.
     */
    public CompletableFuture<Long> markApplied(long nonce) {
        markNonce = nonce;
        return markApplied;
    }

    /** Blocks until every entry handed over so far is handled and the position recorded (before a snapshot). */
    public void awaitHandled() {
        CompletableFuture<Void> flushed = new CompletableFuture<>();
        delivered.add(new Entry(null, -1, null, flushed));
        try {
            flushed.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new FatalException(node + " cannot record its position in the write-set log: " + e.getCause(), e);
        }
    }

    /** The loop, run by a supervised thread until interrupted. */
    public void run() throws InterruptedException {
        while (true) {
            Entry next = delivered.poll(100, TimeUnit.MILLISECONDS);
            try {
                if (next == null) {
                    if (unpersisted > 0 || !forgettable.isEmpty()) {
                        flushPosition(); // idle: record how far the log is handled
                    }
                    continue;
                }
                if (next.message() == null) {
                    flushPosition();
                    next.flushed().complete(null);
                    continue;
                }
                handle(next);
                if (unpersisted >= POSITION_LAG) {
                    flushPosition();
                }
            } catch (SQLException | RuntimeException e) {
                if (e instanceof FatalException fatal) {
                    throw fatal;
                }
                throw new FatalException(
                        node + " cannot apply entry " + (next == null ? "-" : next.index()) + " of the "
                                + "write-set log ("
                                + (next == null ? "position" : next.message().describe()) + "; the replica "
                                + "would diverge): " + e.getMessage(),
                        e);
            }
        }
    }

    private void handle(Entry entry) throws SQLException, InterruptedException {
        if (entry.logId() != null) {
            startOfLog(entry.logId());
        }
        Message message = entry.message();
        long index = entry.index();
        boolean replayed = index <= persistedIndex;
        if (message instanceof LogMark mark) {
            if (!replayed && mark.origin().equals(node) && mark.nonce() == markNonce) {
                markApplied.complete(index);
            }
            handled(index);
        } else if (message instanceof Abandon decision) {
            settle(decision, replayed);
            handled(index);
        } else if (message instanceof WriteSet writeSet) {
            if (abandoned.remove(writeSet.txnId())) {
                LOG.warn(
                        "{}: discarded the write-set of transaction {} from {}, committed in the log after it was "
                                + "abandoned",
                        node,
                        writeSet.txnId(),
                        writeSet.origin());
                handled(index);
                return;
            }
            WriteSet.Order order = writeSet.order();
            if (!order.isOrdered()) {
                writeSet(entry, writeSet, replayed);
                return;
            }
            Chain chain =
                    chains.computeIfAbsent(new ChainKey(writeSet.origin(), order.incarnation()), key -> new Chain());
            // A chain met with a predecessor it never saw starts where it is only if the log began at a snapshot (the
            // entries before it are gone); otherwise the predecessor is still to come.
            boolean unseenStart = chain.last == -1 && startedFromSnapshot;
            if (order.previous() != -1 && order.previous() != chain.last && !unseenStart) {
                chain.waitingByPrevious.put(order.previous(), entry);
                waitingIndexes.add(index);
                return;
            }
            while (entry != null) {
                WriteSet next = (WriteSet) entry.message();
                writeSet(entry, next, entry.index() <= persistedIndex);
                chain.last = next.order().commitOrder();
                entry = chain.waitingByPrevious.remove(chain.last);
                if (entry != null) {
                    waitingIndexes.remove(entry.index());
                }
            }
        }
    }

    /** Applies, decides or only remembers one write-set, and marks its entry handled. */
    private void writeSet(Entry entry, WriteSet writeSet, boolean replayed) throws SQLException, InterruptedException {
        long txn = writeSet.txnId();
        long index = entry.index();
        boolean ownHere = writeSet.origin().equals(node) && own.takeCommittedHere(txn);
        if (replayed || ownHere || committedAhead.remove(txn)) {
            // Already reflected here: rebuild only what this process keeps in memory.
            if (!replayed) {
                forgettable.add(new Ahead(txn, index));
            }
            if (certification != null) {
                certification.replay(writeSet);
            }
            visibility.markVisible(txn);
            handled(index);
            return;
        }
        boolean ownLive = writeSet.origin().equals(node) && own.isPending(txn);
        if (writeSet.origin().equals(node)
                && !ownLive
                && certification == null
                && writeSet.changes().isEmpty()) {
            visible(txn); // an own empty write-set (a rolled-back call): nothing to apply
            handled(index);
            return;
        }
        if (certification != null) {
            long start = System.nanoTime();
            boolean won = certification.deliver(
                    writeSet, ownLive, applier, connection, positionAfter(index), aheadRecord(index, txn));
            if (ownLive) {
                forgettable.add(new Ahead(txn, index)); // a winner's worker committed it with its committed_ahead row
            }
            if (!ownLive && won) { // a loser's origin executes it again; nothing to apply
                if (!writeSet.changes().isEmpty()) {
                    statistics.applied(writeSet.procedure(), System.nanoTime() - start);
                }
                visible(txn);
            }
            persistedIfWritten(index, !ownLive && won && !writeSet.changes().isEmpty());
            return;
        }
        if (ownLive) {
            own.deliver(txn, true); // SI: its worker commits now; the next entry waits for that
            forgettable.add(new Ahead(txn, index));
            handled(index);
            return;
        }
        // Another replica's write-set, or one of this replica's earlier start that never committed here.
        visibility.awaitAll(writeSet.backDependencies());
        if (!writeSet.changes().isEmpty()) {
            long start = System.nanoTime();
            applier.apply(writeSet.changes(), positionAfter(index), aheadRecord(index, txn));
            connection.commit();
            statistics.applied(writeSet.procedure(), System.nanoTime() - start);
            persistedIfWritten(index, true);
        } else {
            handled(index);
        }
        visible(txn);
    }

    /**
     * A departed node's unreported transactions, in log order: each one not yet visible here (its write-set not
     * committed in the log before this) is done with no effect, so its dependents may start; its write-set, if it
     * ever comes, is discarded. Every node decides alike, since all see the same log.
     */
    private void settle(Abandon decision, boolean replayed) {
        int settled = 0;
        for (long txn : decision.transactions()) {
            if (!replayed && (committedAhead.contains(txn) || own.takeCommittedHere(txn))) {
                // This replica committed it (PSI commits before the log holds it), the cluster has decided it never
                // happened: this replica now holds what no other does, and must not serve with it.
                throw new FatalException(node + " committed transaction " + txn + " but the write-set log settled it "
                        + "as abandoned (" + decision.describe() + "): this replica holds what the others do not and "
                        + "must be rebuilt by state transfer before it serves again");
            }
            if (!visibility.isVisible(txn)) {
                abandoned.add(txn);
                if (replayed) {
                    visibility.markVisible(txn);
                } else {
                    visible(txn);
                }
                settled++;
            }
        }
        if (settled > 0 && !replayed) { // copies of the decision (one per survivor) find nothing left to settle
            LOG.info(
                    "{}: {} left; {} of its {} unreported transaction(s) settled as done with no effect",
                    node,
                    decision.origin(),
                    settled,
                    decision.transactions().length);
        }
    }

    /**
     * The log's first entry: if this replica's position was taken in another log (a cluster started afresh on these
     * databases), it means nothing here: every entry of this log is new to this replica.
     */
    private void startOfLog(String logId) throws SQLException {
        String recorded = ReplicaState.logId(connection);
        if (logId.equals(recorded)) {
            connection.commit();
            return;
        }
        applier.apply(List.of(), -1, ReplicaState.startLog(logId));
        connection.commit();
        if (recorded != null) {
            LOG.info(
                    "{}: a new write-set log ({}; this replica had applied up to entry {} of log {}): its position "
                            + "starts again from 0",
                    node,
                    logId,
                    persistedIndex,
                    recorded);
        }
        synchronized (this) {
            persistedIndex = 0;
        }
        handledIndex = 0;
        committedAhead.clear();
        forgettable.clear();
        unpersisted = 0;
    }

    /** The position a transaction applying entry {@code index} may record: not past a write-set still waiting. */
    private long positionAfter(long index) {
        long through = waitingIndexes.isEmpty() ? Math.max(handledIndex, index) : waitingIndexes.first() - 1;
        return Math.max(persistedIndex, through);
    }

    /** The statements that go with applying entry {@code index}: committed_ahead bookkeeping. */
    private List<String> aheadRecord(long index, long txn) {
        List<String> statements = new ArrayList<>(2);
        long position = positionAfter(index);
        if (position < index) {
            statements.add(ReplicaState.recordCommittedAhead(txn)); // an earlier entry still waits
        }
        List<Long> passed = passed(position);
        if (!passed.isEmpty()) {
            statements.add(ReplicaState.forgetCommittedAhead(passed));
        }
        return statements;
    }

    /** The committed_ahead rows a position write passes (taken off {@link #forgettable} when it is done). */
    private List<Long> passed(long position) {
        List<Long> txns = new ArrayList<>();
        for (Ahead ahead : forgettable) {
            if (ahead.index() <= position) {
                txns.add(ahead.txn());
            }
        }
        return txns;
    }

    /** Entry {@code index} is handled; if {@code written}, its transaction recorded the position too. */
    private void persistedIfWritten(long index, boolean written) {
        long position = positionAfter(index);
        handled(index);
        if (written) {
            persisted(position);
        }
    }

    /** The database now records {@code position}: the committed_ahead rows it passes are gone. */
    private void persisted(long position) {
        synchronized (this) {
            persistedIndex = Math.max(persistedIndex, position);
        }
        forgettable.removeIf(ahead -> ahead.index() <= position);
        unpersisted = 0;
    }

    private void handled(long index) {
        if (index > handledIndex) {
            handledIndex = index;
        }
        unpersisted++;
    }

    /** Records the position (and forgets what it passed) in a transaction of its own. */
    private void flushPosition() throws SQLException {
        long position = positionAfter(handledIndex);
        List<Long> passed = passed(position);
        if (position <= persistedIndex && passed.isEmpty()) {
            unpersisted = 0;
            return;
        }
        applier.apply(
                List.of(), position, passed.isEmpty() ? List.of() : List.of(ReplicaState.forgetCommittedAhead(passed)));
        connection.commit();
        persisted(position);
    }

    private void visible(long txn) {
        visibility.markVisible(txn);
        progress.visible(txn);
    }
}
