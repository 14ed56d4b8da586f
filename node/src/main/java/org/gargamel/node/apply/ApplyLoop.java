package org.gargamel.node.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.jdbc.Rollbacks;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.EpochClaim;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Settlement;
import org.gargamel.common.wire.Shipped;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.certify.PrimaryKeys;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.shipping.ShippedPositions;
import org.gargamel.node.transfer.TaintedReplicaException;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.AnsweredCalls;
import org.gargamel.node.writeset.OwnTransaction;
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
    /**
     * How long a statement of a group of write-sets ({@link #flushGroup}) waits for a row lock before the group gives
     * way: far below PostgreSQL's default deadlock_timeout (1 s), so in a deadlock with a local call the group is the
     * one that yields, and the call is never aborted.
     */
    static final int GROUP_LOCK_TIMEOUT_MILLIS = 50;

    /** Entries handled without a database transaction before their position is written anyway. */
    private static final int POSITION_LAG = 1_000;
    /** Outcomes of the latest write-sets kept for settlements ({@link #recentOutcomes}). */
    static final int RECENT_OUTCOMES = 1 << 16;

    /**
     * A committed log entry ({@code logId}: the log's identity, with the first entry only); or, with no message, a
     * request to record the position now (before a snapshot).
     */
    private record Entry(Message message, long index, String logId, CompletableFuture<Void> flushed) {
        Entry(Message message, long index, String logId) {
            this(message, index, logId, null);
        }
    }

    /** Not an entry: a parallel applier finished a write-set ({@link #takeFinished}). */
    private static final Entry WAKE = new Entry(null, -2, null, null);

    /**
     * One write-set as its origin sent it: a round-robin loser runs again under the same transaction id, with a later
     * certification snapshot, so the id alone does not tell a re-send from a new attempt.
     */
    private record Sent(long txn, long snapshot) {}

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
    /** The CPU applying costs, here and in the backend (NodeStatistics). */
    private final CpuClock cpu;

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

    /**
     * The outcomes carried by the latest write-sets (this node's own included), by transaction: when a node dies
     * after its entry is committed but before it answered its client, the settlement of its transactions gives their
     * outcomes to the scheduler from here. Bounded: the scheduler's in-flight limit keeps a departed node's unanswered
     * transactions far fewer than this, and they are among the latest entries.
     */
    private final Map<Long, CallOutcome> recentOutcomes = new Recent<>(RECENT_OUTCOMES);
    /** Which scheduler the log made active (EPOCH_CLAIM entries). */
    private final ActiveScheduler activeScheduler;
    /** Outcomes by call, for resubmitted calls (filled here, in log order). */
    private final AnsweredCalls answeredCalls;
    /** Tells a claimant that the log made it active, with its epoch. */
    /** Tells a claimant how the log decided its claim: active at this epoch, or superseded by it. */
    private final java.util.function.BiConsumer<org.jgroups.Address, Long> answerClaim;

    /** Transactions lately settled (abandoned or standing): a later copy of the same decision finds nothing to do. */
    private final Map<Long, Boolean> recentlySettled = new Recent<>(RECENT_OUTCOMES);

    /** Transactions an ABANDON named, in log order as delivered (jgroups-raft's thread only). */
    private final Map<Long, Boolean> abandonedInLog = new Recent<>(RECENT_OUTCOMES);

    /**
     * Write-sets met in the log, latest last: an append that seemed lost is sent again (WriteSetLog), so the log may
     * hold a write-set twice; the second copy is ignored. Keyed by {@link Sent}. Bounded alike at every replica (it follows the log alone).
     */
    private final Map<Sent, Boolean> seenWriteSets = new Recent<>(RECENT_OUTCOMES);

    /** Sends this node's answers whose entries are committed (see {@link #deliver}). */
    private final ExecutorService answers;

    private final Map<ChainKey, Chain> chains = new HashMap<>();
    /** Log indexes of write-sets waiting for their predecessor in their chain: the position cannot pass them. */
    private final TreeSet<Long> waitingIndexes = new TreeSet<>();
    /** Reflected here ahead of the persisted position (ReplicaState.committed_ahead), by transaction. */
    private final Set<Long> committedAhead;
    /** Rows of committed_ahead whose entries are handled: forgotten once the position passes them. */
    private final java.util.ArrayDeque<Ahead> forgettable = new java.util.ArrayDeque<>();

    /** Parallel apply (several applier connections; PSI or SI), else null: this thread applies. */
    private final ParallelApply parallel;
    /** Write-sets the parallel appliers hold, by log index: the position cannot pass them. */
    private final TreeMap<Long, ParallelApply.Task> applying = new TreeMap<>();
    /** The latest task touching each row ({@link PrimaryKeys#applyKeys}), while it is in {@link #applying}. */
    private final Map<String, ParallelApply.Task> lastWriterOfKey = new HashMap<>();
    /** The primary keys parallel apply orders write-sets by; null without it. */
    private final PrimaryKeys primaryKeys;
    /** The task submitted last (SI commits in its order); null if none. */
    private ParallelApply.Task lastSubmitted;

    /**
     * The most write-sets applied in one transaction ({@link #flushGroup}); 1: each in its own. Only without parallel
     * apply and certification.
     */
    private final int groupLimit;
    /** Other replicas' write-sets taken for the next group transaction, in log order, not applied yet. */
    private final List<Entry> group = new ArrayList<>();
    /** Their transactions. */
    private final Set<Long> groupTxns = new HashSet<>();
    /** The log indexes of write-sets taken for a group and not committed yet: the position cannot pass them. */
    private final TreeSet<Long> unappliedInGroup = new TreeSet<>();

    /** This node's marks awaited (the catch-up mark at start, barriers of calls), by nonce. */
    private final Map<Long, CompletableFuture<Long>> marksAwaited = new java.util.concurrent.ConcurrentHashMap<>();
    /** Set when the log handed this replica a snapshot past what it applied ({@link #mustBeRebuilt}). */
    private volatile String rebuildReason;

    /** The log this replica reads began at a snapshot: the commit-order chains before it are unknown. */
    private volatile boolean startedFromSnapshot;

    /** What other sites shipped into this site's log, and this site's own position (a write-set log per site). */
    private final ShippedPositions shipped = new ShippedPositions();

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
            NodeStatistics statistics,
            ActiveScheduler activeScheduler,
            AnsweredCalls answeredCalls,
            java.util.function.BiConsumer<org.jgroups.Address, Long> answerClaim,
            ParallelAppliers parallelAppliers,
            int groupLimit)
            throws SQLException {
        this.node = node;
        this.activeScheduler = activeScheduler;
        this.answeredCalls = answeredCalls;
        this.answerClaim = answerClaim;
        this.connection = connection;
        this.cpu = CpuClock.of(connection, node + " applier");
        this.applier = new WriteSetApplier(connection);
        this.visibility = visibility;
        this.own = own;
        this.certification = certification;
        this.progress = progress;
        this.statistics = statistics;
        this.answers = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, node + "-answers");
            thread.setDaemon(true);
            return thread;
        });
        this.persistedIndex = ReplicaState.appliedIndex(connection);
        this.handledIndex = persistedIndex;
        this.committedAhead = ReplicaState.committedAhead(connection);
        connection.commit();
        if (parallelAppliers.connections().isEmpty() || certification != null) {
            // Round-robin certifies each write-set against the ones applied before it: one at a time.
            this.parallel = null;
            this.primaryKeys = null;
            parallelAppliers.connections().forEach(ApplyLoop::closeQuietly);
            this.groupLimit = certification == null ? Math.max(1, groupLimit) : 1;
        } else {
            this.primaryKeys = parallelAppliers.primaryKeys();
            this.parallel = new ParallelApply(
                    node,
                    parallelAppliers.connections(),
                    visibility,
                    statistics,
                    this::visible,
                    () -> delivered.add(WAKE),
                    parallelAppliers.commitInOrder());
            this.parallel.start();
            this.groupLimit = 1;
        }
    }

    /**
     * The connections that apply write-sets in parallel (none: the loop's own connection applies them one by one),
     * the keys that order them, and whether their commits keep the log's order (SI).
     */
    public record ParallelAppliers(List<Connection> connections, PrimaryKeys primaryKeys, boolean commitInOrder) {
        public static ParallelAppliers none() {
            return new ParallelAppliers(List.of(), null, false);
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // not used
        }
    }

    /** What other sites shipped into this site's log (a write-set log per site), decided in log order here. */
    public ShippedPositions shipped() {
        return shipped;
    }

    /** The log's entries start after a snapshot (LogStateMachine): chains already under way start where met. */
    public void startsFromSnapshot() {
        startedFromSnapshot = true;
    }

    /** The last log index reflected in this replica's database. */
    public synchronized long persistedIndex() {
        return persistedIndex;
    }

    /**
     * The log committed {@code message} at {@code index}. jgroups-raft's thread, in log order; never blocks. A call of
     * this node whose entry this is gets its answer now, without waiting for the entries before it to be applied here,
     * unless an ABANDON of its transaction came first in the log (then it never gets one from here).
     */
    public void deliver(Message message, long index, String logId) {
        if (Shipped.isShippable(message)) {
            shipped.ownDelivered(index); // before this node reports any of them visible
        }
        if (message instanceof Abandon decision) {
            for (long txn : decision.transactions()) {
                abandonedInLog.put(txn, Boolean.TRUE);
            }
        } else if (message instanceof EpochClaim claim && activeScheduler.concerns(claim.site())) {
            activeScheduler.announce(claim.claimant(), index);
        } else if (message instanceof WriteSet writeSet
                && writeSet.origin().equals(node)
                && !abandonedInLog.containsKey(writeSet.txnId())) {
            OwnTransactions.Confirmation confirmation = own.confirmation(writeSet.txnId());
            if (confirmation != null) {
                answers.execute(confirmation::answer); // a send on the control channel may block: not on this thread
            }
        }
        delivered.add(new Entry(message, index, logId));
    }

    /** Stops the thread that sends answers; lets go of the CPU clock's file. */
    public void close() {
        answers.shutdownNow();
        if (parallel != null) {
            parallel.close();
        }
        cpu.close();
    }

    /**
     * Waits until the log entry {@link LogMark} with {@code nonce} from this node is applied: then this replica
     * reflects every entry committed before it. Returns its index.
     */
    public CompletableFuture<Long> markApplied(long nonce) {
        return marksAwaited.computeIfAbsent(nonce, n -> new CompletableFuture<>());
    }

    /** The mark with {@code nonce} is no longer awaited (its waiter gave up): nothing keeps its future. */
    public void forgetMark(long nonce) {
        marksAwaited.remove(nonce);
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

    /**
     * This replica lacks entries the log no longer holds (LogStateMachine, from the log's thread): the loop marks it
     * tainted and stops the node, on its own thread and connection, within 100 ms.
     */
    public void mustBeRebuilt(String reason) {
        rebuildReason = reason;
    }

    /** The loop, run by a supervised thread until interrupted. */
    public void run() throws InterruptedException {
        while (true) {
            if (rebuildReason != null) {
                throw tainted(node + ": " + rebuildReason);
            }
            Entry next = delivered.poll(100, TimeUnit.MILLISECONDS);
            try {
                takeFinished();
                if (next != null && next.message() == null && next.flushed() == null) { // WAKE
                    continue;
                }
                if (next == null) {
                    flushGroup();
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
                Long committedAbandoned = committedAfterAbandon();
                if (committedAbandoned != null) {
                    // Its own write-set, still to come, would taint this replica (discardOwn); an entry before it
                    // that collides with that commit (the call run again elsewhere: the same new order id) fails
                    // first. Either way this replica holds what the others do not: rebuild it, do not just stop.
                    throw tainted(node + " committed transaction " + committedAbandoned + " after the write-set log "
                            + "settled it as abandoned, and entry " + (next == null ? "-" : next.index())
                            + " then failed to apply (" + e.getMessage() + "): this replica holds what the others do "
                            + "not and is rebuilt from a peer before it serves again");
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
        if (entry.message() instanceof Shipped from) {
            // Another site's entry (a write-set log per site): taken in its origin's order, once; a copy or one after
            // a gap is skipped here as at every node of the site (ShippedPositions).
            if (shipped.accept(from)) {
                handleEntry(new Entry(from.entry(), entry.index(), null));
            } else {
                handled(entry.index());
            }
            return;
        }
        handleEntry(entry);
    }

    private void handleEntry(Entry entry) throws SQLException, InterruptedException {
        Message message = entry.message();
        long index = entry.index();
        boolean replayed = index <= persistedIndex;
        if (message instanceof LogMark mark) {
            CompletableFuture<Long> awaited =
                    !replayed && mark.origin().equals(node) ? marksAwaited.remove(mark.nonce()) : null;
            if (awaited != null) {
                drain(); // the mark says every entry before it is reflected here
                awaited.complete(index);
            }
            handled(index);
        } else if (message instanceof Abandon decision) {
            drain(); // whether a transaction stands depends on whether its write-set is visible here
            settle(decision, replayed);
            handled(index);
        } else if (message instanceof EpochClaim claim && !activeScheduler.concerns(claim.site())) {
            handled(index); // another site's scheduler: its nodes follow it, this one does not
        } else if (message instanceof EpochClaim claim) {
            flushGroup();
            if (activeScheduler.claim(claim.claimant(), index)) {
                LOG.info("{}: the log made {} the active scheduler, epoch {}", node, claim.claimant(), index);
                visibility.wakeAll(); // calls of the earlier epoch waiting for dependencies give up
            }
            // The active one learns its epoch; a superseded one that claims again is alive after all (it was cut
            // off): it learns that it never will be active again.
            if (claim.claimant().equals(activeScheduler.claimant()) || activeScheduler.superseded(claim.claimant())) {
                answerClaim.accept(claim.claimant(), activeScheduler.epoch());
            }
            handled(index);
        } else if (message instanceof WriteSet writeSet) {
            if (seenWriteSets.put(new Sent(writeSet.txnId(), writeSet.snapshot()), Boolean.TRUE) != null) {
                handled(index); // a second copy: its origin sent it again when its first send seemed lost
                return;
            }
            if (abandoned.remove(writeSet.txnId())) {
                flushGroup();
                if (writeSet.origin().equals(node) && !replayed) {
                    discardOwn(writeSet.txnId());
                }
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

    /**
     * Applies, decides or only remembers one write-set, and marks its entry handled; then, if it is this node's and its
     * call waits for it, answers the call ({@link OwnTransactions.Confirmation}).
     */
    private void writeSet(Entry entry, WriteSet writeSet, boolean replayed) throws SQLException, InterruptedException {
        boolean mine = writeSet.origin().equals(node);
        OwnTransactions.Confirmation confirmation = mine ? own.takeConfirmation(writeSet.txnId()) : null;
        if (writeSet.outcome() != null) {
            // Its own too: a node taken for departed while alive settles its own transactions from the same entry.
            recentOutcomes.put(writeSet.txnId(), writeSet.outcome());
        }
        handleWriteSet(entry, writeSet, replayed, confirmation != null && confirmation.effects());
        answeredCalls.record(writeSet.caller(), writeSet.outcome());
        if (confirmation != null) {
            confirmation.answer(); // normally done already, on delivery
        }
    }

    private void handleWriteSet(Entry entry, WriteSet writeSet, boolean replayed, boolean ownHere)
            throws SQLException, InterruptedException {
        long txn = writeSet.txnId();
        long index = entry.index();
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
            CpuClock.Timing start = cpu.start();
            boolean won = certification.deliver(
                    writeSet, ownLive, applier, connection, positionAfter(index), aheadRecord(index, txn));
            if (ownLive) {
                forgettable.add(new Ahead(txn, index)); // a winner's worker committed it with its committed_ahead row
            }
            if (!ownLive && won) { // a loser's origin executes it again; nothing to apply
                if (!writeSet.changes().isEmpty()) {
                    statistics.applied(writeSet.procedure(), start.stop());
                }
                visible(txn);
            }
            persistedIfWritten(index, !ownLive && won && !writeSet.changes().isEmpty());
            return;
        }
        if (ownLive) {
            drain(); // SI: every earlier entry commits before this one
            own.deliver(txn, OwnTransaction.Decision.COMMIT); // SI: its worker commits now; the next entry waits
            forgettable.add(new Ahead(txn, index));
            handled(index);
            return;
        }
        // Another replica's write-set, or one of this replica's earlier start that never committed here.
        if (parallel != null) {
            submit(index, writeSet);
            return;
        }
        if (groupLimit > 1) {
            takeIntoGroup(entry, writeSet);
            return;
        }
        awaitDependencies(writeSet, index);
        if (!writeSet.changes().isEmpty()) {
            applyAlone(entry, writeSet);
        } else {
            handled(index);
        }
        visible(txn);
    }

    /** Applies one write-set in a transaction of its own, with the position it may record; marks its entry handled. */
    private void applyAlone(Entry entry, WriteSet writeSet) throws SQLException {
        long index = entry.index();
        long txn = writeSet.txnId();
        CpuClock.Timing start = cpu.start();
        long position = positionAfter(index);
        applier.apply(writeSet.changes(), position, aheadRecord(index, txn));
        connection.commit();
        statistics.applied(writeSet.procedure(), start.stop());
        if (position < index) {
            forgettable.add(new Ahead(txn, index)); // it recorded itself in committed_ahead: forgotten once passed
        }
        persistedIfWritten(index, true);
    }

    /**
     * Takes another replica's write-set into the group applied next in one transaction (issue 17: one round trip, one
     * commit and one position write for several write-sets, their changes merged into fewer statements). A group
     * forms only from entries already delivered: this one joins it if its back-dependencies are visible here or in the
     * group; the group is applied once it is full or the next delivered entry is not a write-set (or none waits), and
     * before anything that needs every earlier entry reflected (a mark, an ABANDON, an own SI commit, a position write).
     * So a replica that keeps up applies one write-set per transaction, and one that falls behind catches up in groups.
     */
    private void takeIntoGroup(Entry entry, WriteSet writeSet) throws SQLException, InterruptedException {
        long index = entry.index();
        long txn = writeSet.txnId();
        if (!group.isEmpty() && (writeSet.changes().isEmpty() || !dependenciesMetWithGroup(writeSet))) {
            flushGroup();
        }
        if (group.isEmpty()) {
            awaitDependencies(writeSet, index);
        }
        if (writeSet.changes().isEmpty()) {
            handled(index);
            visible(txn);
            return;
        }
        group.add(entry);
        groupTxns.add(txn);
        unappliedInGroup.add(index);
        handled(index);
        Entry upcoming = delivered.peek();
        if (group.size() >= groupLimit || upcoming == null || !(upcoming.message() instanceof WriteSet)) {
            flushGroup();
        }
    }

    private boolean dependenciesMetWithGroup(WriteSet writeSet) {
        for (long dependency : writeSet.backDependencies()) {
            if (!groupTxns.contains(dependency) && !visibility.isVisible(dependency)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Applies the group in one transaction, with the position it may record and committed_ahead rows for its members
     * past that position (a write-set before them still waits). Its statements wait at most
     * {@link #GROUP_LOCK_TIMEOUT_MILLIS} for a row lock: PSI lets a remote write-set share a row with a local call
     * (column-disjoint updates, increments), and a group holding several write-sets' rows may wait for a call that
     * waits for it, where one write-set alone keeps its origin's lock order. If the group fails for that or any other
     * reason (a unique value passed from one row to another, which one statement may meet in the wrong order), it is
     * rolled back and its write-sets applied one per transaction, which wait as long as they need to and report a
     * failure of their own; but a group that failed because the database is gone ends the loop with that error, which
     * fences the node (docs/node.md, Fencing). The statistics share the group's time and CPU among its write-sets by
     * their rows.
     */
    private void flushGroup() throws SQLException {
        if (group.isEmpty()) {
            return;
        }
        List<Entry> members = new ArrayList<>(group);
        group.clear();
        groupTxns.clear();
        if (members.size() == 1) {
            applyMember(members.get(0));
            return;
        }
        List<WriteSet.RowChange> changes = new ArrayList<>();
        for (Entry member : members) {
            changes.addAll(((WriteSet) member.message()).changes());
        }
        long last = members.get(members.size() - 1).index();
        unappliedInGroup.removeAll(members.stream().map(Entry::index).toList());
        long position = positionAfter(last);
        List<String> extra = new ArrayList<>();
        for (Entry member : members) {
            if (member.index() > position) {
                extra.add(ReplicaState.recordCommittedAhead(((WriteSet) member.message()).txnId()));
            }
        }
        List<Long> passed = passed(position);
        if (!passed.isEmpty()) {
            extra.add(ReplicaState.forgetCommittedAhead(passed));
        }
        CpuClock.Timing start = cpu.start();
        try {
            applier.apply(changes, position, extra, GROUP_LOCK_TIMEOUT_MILLIS);
            connection.commit();
        } catch (SQLException e) {
            Rollbacks.after(connection, e);
            if (SqlErrorKind.isConnectionLoss(e)) {
                throw e; // the database is gone: no write-set of the group can be applied alone either (fencing)
            }
            statistics.groupGaveWay();
            LOG.debug(
                    "{}: a group of {} write-sets gave way ({}); applying them one by one",
                    node,
                    members.size(),
                    e.getMessage());
            members.forEach(member -> unappliedInGroup.add(member.index()));
            for (Entry member : members) {
                applyMember(member);
            }
            return;
        }
        CpuClock.Elapsed elapsed = start.stop();
        statistics.appliedGroup(members.size());
        for (Entry member : members) {
            WriteSet writeSet = (WriteSet) member.message();
            statistics.applied(
                    writeSet.procedure(), elapsed.share(writeSet.changes().size(), changes.size()));
            if (member.index() > position) {
                forgettable.add(new Ahead(writeSet.txnId(), member.index()));
            }
        }
        persisted(position);
        for (Entry member : members) {
            visible(((WriteSet) member.message()).txnId());
        }
    }

    /** One write-set taken for a group, applied alone after all. */
    private void applyMember(Entry member) throws SQLException {
        unappliedInGroup.remove(member.index());
        WriteSet writeSet = (WriteSet) member.message();
        try {
            applyAlone(member, writeSet);
        } catch (SQLException e) {
            throw new SQLException(
                    "entry " + member.index() + " (" + writeSet.describe() + "): " + e.getMessage(),
                    e.getSQLState(),
                    e);
        }
        visible(writeSet.txnId());
    }

    /** Waits for a write-set's back-dependencies, saying every 10 s what it waits for (a stall must be visible). */
    private void awaitDependencies(WriteSet writeSet, long index) throws InterruptedException {
        awaitDependencies(node, visibility, writeSet, index);
    }

    /** The same for any applier of {@code node}: this loop, or a parallel applier's thread ({@link ParallelApply}). */
    static void awaitDependencies(String node, Visibility visibility, WriteSet writeSet, long index)
            throws InterruptedException {
        long started = System.nanoTime();
        List<Long> missing = visibility.awaitAll(writeSet.backDependencies(), 10_000);
        while (!missing.isEmpty()) {
            LOG.warn(
                    "{}: entry {} ({}) has waited {} s for transaction(s) {} to be visible here",
                    node,
                    index,
                    writeSet.describe(),
                    (System.nanoTime() - started) / 1_000_000_000,
                    missing);
            missing = visibility.awaitAll(writeSet.backDependencies(), 10_000);
        }
    }

    /**
     * A departed node's unreported transactions, in log order: each one whose write-set the log committed before this
     * stands; every other one is done with no effect, so its dependents may start, and its write-set, if it ever comes
     * (or if it came but still waits for an earlier one of its origin), is discarded. Every node decides alike, since
     * all see the same log, and tells the scheduler ({@link Settlement}), which answers the calls that stand and runs
     * the others again (thesis Alg 4).
     *
     * <p>If this node is the one taken for departed (falsely suspected, or cut off and back): a transaction it
     * committed (PSI) that the log settles as abandoned is fatal, since this replica now holds what no other does;
     * one waiting for its entry (SI, round-robin, a rolled-back call) is rolled back without an answer to its client.
     */
    private void settle(Abandon decision, boolean replayed) throws InterruptedException {
        List<Long> settledNow = new ArrayList<>();
        List<CallOutcome> stood = new ArrayList<>();
        List<Long> unknown = new ArrayList<>();
        for (long txn : decision.transactions()) {
            if (recentlySettled.containsKey(txn)) {
                continue; // settled by an earlier copy of the decision
            }
            boolean waitingHere = false;
            if (!replayed) {
                OwnTransactions.Confirmation confirmation = own.takeConfirmation(txn);
                if (committedAhead.contains(txn) || (confirmation != null && confirmation.effects())) {
                    throw tainted(node + " committed transaction " + txn + " but the write-set log settled it as "
                            + "abandoned (" + decision.describe() + "): this replica holds what the others do not and "
                            + "is rebuilt from a peer before it serves again");
                }
                waitingHere = confirmation != null || own.isPending(txn);
                if (own.isPending(txn)) {
                    own.deliver(txn, OwnTransaction.Decision.ABANDONED); // its worker rolls back and answers nobody
                }
            }
            if (visibility.isVisible(txn) && !waitingHere) {
                recentlySettled.put(txn, Boolean.TRUE);
                CallOutcome outcome = recentOutcomes.get(txn);
                if (outcome != null) {
                    stood.add(outcome);
                } else {
                    unknown.add(txn);
                }
                continue;
            }
            if (!dropWaiting(txn)) {
                abandoned.add(txn);
            }
            recentlySettled.put(txn, Boolean.TRUE);
            if (replayed) {
                visibility.markVisible(txn);
            } else {
                visible(txn);
            }
            settledNow.add(txn);
        }
        if (replayed || (settledNow.isEmpty() && stood.isEmpty() && unknown.isEmpty())) {
            return;
        }
        if (!settledNow.isEmpty()) { // copies of the decision (one per survivor) find nothing left to settle
            LOG.info(
                    "{}: {} left; {} of its {} unreported transaction(s) settled as done with no effect",
                    node,
                    decision.origin(),
                    settledNow.size(),
                    decision.transactions().length);
        }
        if (!unknown.isEmpty()) {
            LOG.warn(
                    "{}: {} transaction(s) of {} stand but their outcomes are no longer held here: {}",
                    node,
                    unknown.size(),
                    decision.origin(),
                    unknown);
        }
        progress.settled(new Settlement(
                node,
                decision.origin(),
                settledNow.stream().mapToLong(Long::longValue).toArray(),
                stood,
                unknown.stream().mapToLong(Long::longValue).toArray()));
    }

    /**
     * This node's own write-set came after the log settled its transaction as abandoned (this node was taken for
     * departed and the call sent to it was still run): PSI committed it here, which is fatal as in {@link #settle};
     * a transaction still waiting for its entry rolls back, and no client hears from here.
     */
    private void discardOwn(long txn) throws InterruptedException {
        OwnTransactions.Confirmation confirmation = own.takeConfirmation(txn);
        if (committedAhead.contains(txn) || (confirmation != null && confirmation.effects())) {
            throw tainted(node + " committed transaction " + txn + " after the write-set log settled it as abandoned: "
                    + "this replica holds what the others do not and is rebuilt from a peer before it serves again");
        }
        if (own.isPending(txn)) {
            own.deliver(txn, OwnTransaction.Decision.ABANDONED);
        }
    }

    /**
     * A transaction of this node's that the log settled as abandoned (its write-set not met yet) but that committed
     * here all the same (PSI: its worker committed after the decision), or null.
     */
    private Long committedAfterAbandon() {
        for (long txn : abandoned) {
            OwnTransactions.Confirmation confirmation = own.confirmation(txn);
            if (committedAhead.contains(txn) || (confirmation != null && confirmation.effects())) {
                return txn;
            }
        }
        return null;
    }

    /** Marks this replica's database for a rebuild at the next start, and returns the failure to throw. */
    private TaintedReplicaException tainted(String reason) {
        try {
            ReplicaState.markTainted(connection, reason);
        } catch (SQLException e) {
            LOG.error("{}: cannot mark the replica for a rebuild: {}", node, e.getMessage());
        }
        return new TaintedReplicaException(reason);
    }

    /**
     * A write-set of {@code txn} already in the log but waiting for an earlier one of its origin (which is now settled
     * as never having happened): it is dropped, and the position may pass it. Returns whether there was one.
     */
    private boolean dropWaiting(long txn) {
        for (Chain chain : chains.values()) {
            for (Iterator<Entry> waiting = chain.waitingByPrevious.values().iterator(); waiting.hasNext(); ) {
                Entry entry = waiting.next();
                if (((WriteSet) entry.message()).txnId() == txn) {
                    waiting.remove();
                    waitingIndexes.remove(entry.index());
                    LOG.warn(
                            "{}: discarded the write-set of transaction {} (entry {}), which waited for an earlier "
                                    + "transaction of its origin settled as abandoned",
                            node,
                            txn,
                            entry.index());
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The log's first entry: if this replica's position was taken in another log (a cluster started afresh on these
     * databases), it means nothing here: every entry of this log is new to this replica.
     */
    private void startOfLog(String logId) throws SQLException, InterruptedException {
        drain();
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

    /**
     * The position a transaction applying entry {@code index} may record: not past a write-set still waiting, nor
     * past one a parallel applier still holds.
     */
    private long positionAfter(long index) {
        long through = waitingIndexes.isEmpty() ? Math.max(handledIndex, index) : waitingIndexes.first() - 1;
        if (!applying.isEmpty()) {
            through = Math.min(through, applying.firstKey() - 1);
        }
        if (!unappliedInGroup.isEmpty()) {
            through = Math.min(through, unappliedInGroup.first() - 1);
        }
        return Math.max(persistedIndex, through);
    }

    /**
     * Hands another replica's write-set to the parallel appliers. Its transaction records the position if no earlier
     * entry is still unreflected here (then no other applying transaction writes it: at most one at a time updates
     * the position row), else it records itself in committed_ahead, which the position later passes. It waits for
     * the latest earlier write-set on each of its rows, and in SI for the one submitted before it.
     */
    private void submit(long index, WriteSet writeSet) {
        long txn = writeSet.txnId();
        boolean changes = !writeSet.changes().isEmpty();
        long position = positionAfter(index);
        boolean writesPosition = changes && position >= index;
        List<String> extra;
        if (!changes) {
            extra = List.of();
        } else if (writesPosition) {
            List<Long> passed = passed(position);
            extra = passed.isEmpty() ? List.of() : List.of(ReplicaState.forgetCommittedAhead(passed));
        } else {
            extra = List.of(ReplicaState.recordCommittedAhead(txn));
        }
        Set<String> keys = primaryKeys.applyKeys(writeSet);
        Set<ParallelApply.Task> earlierOnItsRows =
                java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (String key : keys) {
            ParallelApply.Task earlier = lastWriterOfKey.get(key);
            if (earlier != null) {
                earlierOnItsRows.add(earlier);
            }
        }
        List<CompletableFuture<Void>> predecessors = new ArrayList<>();
        earlierOnItsRows.forEach(earlier -> predecessors.add(earlier.done));
        ParallelApply.Task previous = parallel.commitsInOrder() ? lastSubmitted : null;
        ParallelApply.Task task = new ParallelApply.Task(
                index,
                writeSet,
                writesPosition ? position : -1,
                extra,
                keys,
                predecessors,
                previous == null || previous.done.isDone() ? null : previous.done);
        for (String key : keys) {
            lastWriterOfKey.put(key, task);
        }
        applying.put(index, task);
        lastSubmitted = task;
        handled(index);
        parallel.submit(task);
    }

    /**
     * Takes in what the parallel appliers finished: a task that recorded the position moves it; one that recorded
     * itself in committed_ahead is forgotten once the position passes it. A failed one fails the loop (the replica
     * would diverge).
     */
    private void takeFinished() throws SQLException {
        if (parallel == null) {
            return;
        }
        for (ParallelApply.Task task = parallel.finished(); task != null; task = parallel.finished()) {
            applying.remove(task.index);
            for (String key : task.keys) {
                lastWriterOfKey.remove(key, task);
            }
            if (lastSubmitted == task) {
                lastSubmitted = null;
            }
            if (task.failure != null) {
                throw new SQLException(
                        "entry " + task.index + " (" + task.writeSet.describe() + ") failed on a parallel applier: "
                                + task.failure.getMessage(),
                        task.failure);
            }
            if (task.writesPosition()) {
                persisted(task.position);
            } else if (!task.writeSet.changes().isEmpty()) {
                forgettable.add(new Ahead(task.writeSet.txnId(), task.index));
            }
        }
    }

    /**
     * Applies the open group, and waits until the parallel appliers hold nothing: every entry handed over so far is
     * reflected here.
     */
    private void drain() throws SQLException, InterruptedException {
        flushGroup();
        if (parallel == null) {
            return;
        }
        // A task is handed back (ParallelApply.finished) before its done completes: once every done has, all are.
        for (ParallelApply.Task task : new ArrayList<>(applying.values())) {
            try {
                task.done.get();
            } catch (java.util.concurrent.ExecutionException e) {
                // reported by takeFinished
            }
        }
        takeFinished();
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
    private void flushPosition() throws SQLException, InterruptedException {
        drain(); // the appliers' transactions may write the position row too
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
