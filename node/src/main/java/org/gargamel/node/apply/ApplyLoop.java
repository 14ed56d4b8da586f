package org.gargamel.node.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.EpochClaim;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.Message;
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
import org.gargamel.node.writeset.MetWriteSets;
import org.gargamel.node.writeset.OwnTransaction;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.ReplicaState;
import org.jgroups.Address;
import org.slf4j.Logger;

/**
 * The node's applier (DESIGN.md §5): takes the write-set log's committed entries in log order and applies the other
 * replicas' write-sets, each once its back-dependencies are visible here. Its own write-sets decide its waiting
 * transactions (SI commits in the log's order; round-robin certifies). ABANDON decisions settle a departed node's
 * unreported transactions ({@link AbandonSettlement}). A write-set that cannot be applied means this replica would
 * diverge: that is a {@link FatalException} and the node stops.
 *
 * <p>What an entry means is decided in one place, {@link #handleEntry} and {@link #writeSet} (the table there). Who
 * applies another replica's write-set is a {@link RemoteApplier}; PSI write-sets of one origin wait for their
 * predecessor in {@link CommitOrderChains}.
 *
 * <p>Position (docs/node.md, Restart): {@link AppliedPosition}. After a restart the log is replayed from its first
 * entry: entries up to the applied index, and those recorded as committed ahead of it, only rebuild what this process
 * keeps in memory (visibility, settled transactions, certification, commit-order chains); the others are applied. So
 * no entry is applied twice and none is missed ({@code AppliedPositionTest}).
 */
public final class ApplyLoop {
    private static final Logger LOG = ApplyContext.LOG;
    /**
     * How long a statement of a group of write-sets ({@link GroupApplier#flush}) waits for a row lock before the group
     * gives way: far below PostgreSQL's default deadlock_timeout (1 s), so in a deadlock with a local call the group is
     * the one that yields, and the call is never aborted.
     */
    static final int GROUP_LOCK_TIMEOUT_MILLIS = 50;

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
    private final LinkedBlockingQueue<LogEntry> delivered = new LinkedBlockingQueue<>();

    /** Which scheduler the log made active (EPOCH_CLAIM entries). */
    private final ActiveScheduler activeScheduler;
    /** Outcomes by call, for resubmitted calls (filled here, in log order). */
    private final AnsweredCalls answeredCalls;
    /** Tells a claimant how the log decided its claim: active at this epoch, or superseded by it. */
    private final BiConsumer<Address, Long> answerClaim;

    /**
     * Write-sets the log carried: an append that seemed lost is sent again (RaftLog), so the log may hold a write-set
     * twice, however far apart; the second copy is ignored, alike at every replica ({@link MetWriteSets}: exact, by the
     * append's stamp, and kept in the log's snapshots).
     */
    private final MetWriteSets metWriteSets = new MetWriteSets();

    /** What jgroups-raft's thread does with an entry before this loop takes it (answers own calls early). */
    private final Delivery delivery;

    /** The applied index, what is handled, committed ahead and held: where the position may go. */
    private final AppliedPosition position;

    private final CommitOrderChains chains;
    /** Applies the other replicas' write-sets: one by one, in groups, or in parallel. */
    private final RemoteApplier remote;

    private final AbandonSettlement settlement;

    /** This node's marks awaited (the catch-up mark at start, barriers of calls), by nonce. */
    private final Map<Long, CompletableFuture<Long>> marksAwaited = new ConcurrentHashMap<>();
    /** Set when the log handed this replica a snapshot past what it applied ({@link #mustBeRebuilt}). */
    private volatile String rebuildReason;

    /** What other sites shipped into this site's log, and this site's own position (a write-set log per site). */
    private final ShippedPositions shipped = new ShippedPositions();

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
            BiConsumer<Address, Long> answerClaim,
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
        this.position =
                new AppliedPosition(ReplicaState.appliedIndex(connection), ReplicaState.committedAhead(connection));
        connection.commit();
        this.delivery = new Delivery(node, own, activeScheduler, shipped);
        ApplyContext context =
                new ApplyContext(node, connection, applier, cpu, visibility, statistics, position, this::visible);
        this.chains = new CommitOrderChains(position);
        this.settlement = new AbandonSettlement(context, own, progress, chains, this::tainted);
        if (parallelAppliers.connections().isEmpty() || certification != null) {
            // Round-robin certifies each write-set against the ones applied before it: one at a time.
            parallelAppliers.connections().forEach(ApplyLoop::closeQuietly);
            int limit = certification == null ? Math.max(1, groupLimit) : 1;
            this.remote =
                    limit > 1 ? new GroupApplier(context, limit, this::writeSetComesNext) : new SerialApplier(context);
        } else {
            this.remote = new ParallelApplier(
                    context,
                    new ParallelApply(
                            node,
                            parallelAppliers.connections(),
                            visibility,
                            statistics,
                            this::visible,
                            () -> delivered.add(LogEntry.WAKE),
                            parallelAppliers.commitInOrder()),
                    parallelAppliers.primaryKeys());
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

    /** Whether the next delivered entry is a write-set: an open group may take it without waiting. */
    private boolean writeSetComesNext() {
        LogEntry upcoming = delivered.peek();
        return upcoming != null && upcoming.message() instanceof WriteSet;
    }

    /** What other sites shipped into this site's log (a write-set log per site), decided in log order here. */
    public ShippedPositions shipped() {
        return shipped;
    }

    /** The write-sets the log carried, decided in log order here (kept in the log's snapshots). */
    public MetWriteSets metWriteSets() {
        return metWriteSets;
    }

    /** The log's entries start after a snapshot (LogStateMachine): chains already under way start where met. */
    public void startsFromSnapshot() {
        chains.startsFromSnapshot();
    }

    /** The last log index reflected in this replica's database. */
    public long persistedIndex() {
        return position.persisted();
    }

    /**
     * The log committed {@code message} at {@code index}. jgroups-raft's thread, in log order; never blocks. A call of
     * this node whose entry this is gets its answer now, without waiting for the entries before it to be applied here,
     * unless an ABANDON of its transaction came first in the log (then it never gets one from here).
     */
    public void deliver(Message message, long index, String logId) {
        delivery.committed(message, index);
        delivered.add(new LogEntry(message, index, logId));
    }

    /** Stops the thread that sends answers; lets go of the CPU clock's file. */
    public void close() {
        delivery.close();
        remote.close();
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
        delivered.add(new LogEntry(null, -1, null, flushed));
        try {
            flushed.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
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
            LogEntry next = delivered.poll(100, TimeUnit.MILLISECONDS);
            try {
                remote.takeFinished();
                if (next != null && next.isWake()) {
                    continue;
                }
                if (next == null) {
                    remote.flush();
                    if (position.pending()) {
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
                if (position.due()) {
                    flushPosition();
                }
            } catch (SQLException | RuntimeException e) {
                if (e instanceof FatalException fatal) {
                    throw fatal;
                }
                Long committedAbandoned = settlement.committedAfterAbandon();
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

    private void handle(LogEntry entry) throws SQLException, InterruptedException {
        if (entry.logId() != null) {
            startOfLog(entry.logId());
        }
        if (entry.message() instanceof Shipped from) {
            // Another site's entry (a write-set log per site): taken in its origin's order, once; a copy or one after
            // a gap is skipped here as at every node of the site (ShippedPositions).
            if (shipped.accept(from)) {
                handleEntry(new LogEntry(from.entry(), entry.index(), null));
            } else {
                position.handled(entry.index());
            }
            return;
        }
        handleEntry(entry);
    }

    /**
     * The one decision table: what an entry means here (first row that matches; "replayed": at or before the recorded
     * position). Every entry ends handled, except one that waits in its chain (it is handled once due).
     *
     * <pre>
     * entry        | condition                                            | action
     * -------------+------------------------------------------------------+-------------------------------------------
     * LOG_MARK     | this node's, awaited, not replayed                   | drain; its waiter learns the index
     *              | else                                                 | nothing
     * ABANDON      |                                                      | drain; settle those not settled yet; not
     *              |                                                      | replayed: answer all (AbandonSettlement)
     * EPOCH_CLAIM  | another site's scheduler                             | nothing
     *              | else                                                 | flush; the claimant active, answered
     * WRITE_SET    | a copy sent again (MetWriteSets)                     | nothing
     *              | its transaction settled as abandoned                 | flush; discarded (own: rolled back/taint)
     *              | ordered, its predecessor not handled yet             | waits in its chain, held (CommitOrderChains)
     *              | else: due, and so is each one that waited for it     | {@link #writeSet}
     * write-set due| replayed, own with effects here, or committed ahead  | memory only: certifier replay, visible
     *              | own, not pending, no changes, no certification       | visible (a rolled-back call)
     *              | certification (round-robin)                          | certified: own decided, a winner applied
     *              | own, pending (SI)                                    | drain; its worker commits now
     *              | else: another replica's (or an earlier start's)      | the {@link RemoteApplier} takes it
     * </pre>
     */
    private void handleEntry(LogEntry entry) throws SQLException, InterruptedException {
        Message message = entry.message();
        long index = entry.index();
        boolean replayed = position.replayed(index);
        if (message instanceof LogMark mark) {
            CompletableFuture<Long> awaited =
                    !replayed && mark.origin().equals(node) ? marksAwaited.remove(mark.nonce()) : null;
            if (awaited != null) {
                drain(); // the mark says every entry before it is reflected here
                awaited.complete(index);
            }
            position.handled(index);
        } else if (message instanceof Abandon decision) {
            drain(); // whether a transaction stands depends on whether its write-set is visible here
            settlement.settle(decision, replayed);
            position.handled(index);
        } else if (message instanceof EpochClaim claim && !activeScheduler.concerns(claim.site())) {
            position.handled(index); // another site's scheduler: its nodes follow it, this one does not
        } else if (message instanceof EpochClaim claim) {
            remote.flush();
            if (activeScheduler.claim(claim.claimant(), index)) {
                LOG.info("{}: the log made {} the active scheduler, epoch {}", node, claim.claimant(), index);
                visibility.wakeAll(); // calls of the earlier epoch waiting for dependencies give up
            }
            // The active one learns its epoch; a superseded one that claims again is alive after all (it was cut
            // off): it learns that it never will be active again.
            if (claim.claimant().equals(activeScheduler.claimant()) || activeScheduler.superseded(claim.claimant())) {
                answerClaim.accept(claim.claimant(), activeScheduler.epoch());
            }
            position.handled(index);
        } else if (message instanceof WriteSet writeSet) {
            if (!metWriteSets.firstCopy(writeSet)) {
                position.handled(index); // a second copy: its origin sent it again when its first send seemed lost
                return;
            }
            if (settlement.takeAbandoned(writeSet.txnId())) {
                remote.flush();
                if (writeSet.origin().equals(node) && !replayed) {
                    settlement.discardOwn(writeSet.txnId());
                }
                LOG.warn(
                        "{}: discarded the write-set of transaction {} from {}, committed in the log after it was "
                                + "abandoned",
                        node,
                        writeSet.txnId(),
                        writeSet.origin());
                position.handled(index);
                return;
            }
            if (!writeSet.order().isOrdered()) {
                writeSet(entry, writeSet);
                return;
            }
            if (!chains.due(entry)) {
                return;
            }
            for (LogEntry due = entry; due != null; due = chains.handled(due)) {
                writeSet(due, (WriteSet) due.message());
            }
        }
    }

    /**
     * Applies, decides or only remembers one write-set that is due (the lower half of the table on
     * {@link #handleEntry}), and marks its entry handled; then, if it is this node's and its call waits for it,
     * answers the call ({@link OwnTransactions.Confirmation}).
     */
    private void writeSet(LogEntry entry, WriteSet writeSet) throws SQLException, InterruptedException {
        boolean replayed = position.replayed(entry.index());
        boolean mine = writeSet.origin().equals(node);
        OwnTransactions.Confirmation confirmation = mine ? own.takeConfirmation(writeSet.txnId()) : null;
        if (writeSet.outcome() != null) {
            // Its own too: a node taken for departed while alive settles its own transactions from the same entry.
            settlement.outcome(writeSet.txnId(), writeSet.outcome());
        }
        decide(entry, writeSet, replayed, confirmation != null && confirmation.effects());
        answeredCalls.record(writeSet.caller(), writeSet.outcome());
        if (confirmation != null) {
            confirmation.answer(); // normally done already, on delivery
        }
    }

    /** The rows "write-set due" of the table on {@link #handleEntry}, in its order. */
    private void decide(LogEntry entry, WriteSet writeSet, boolean replayed, boolean ownHere)
            throws SQLException, InterruptedException {
        long txn = writeSet.txnId();
        long index = entry.index();
        if (replayed || ownHere || position.takeCommittedAhead(txn)) {
            // Already reflected here: rebuild only what this process keeps in memory.
            if (!replayed) {
                position.committedAhead(txn, index);
            }
            if (certification != null) {
                certification.replay(writeSet);
            }
            visibility.markVisible(txn);
            position.handled(index);
            return;
        }
        boolean ownLive = writeSet.origin().equals(node) && own.isPending(txn);
        if (writeSet.origin().equals(node)
                && !ownLive
                && certification == null
                && writeSet.changes().isEmpty()) {
            visible(txn); // an own empty write-set (a rolled-back call): nothing to apply
            position.handled(index);
            return;
        }
        if (certification != null) {
            certify(index, writeSet, ownLive);
            return;
        }
        if (ownLive) {
            drain(); // SI: every earlier entry commits before this one
            own.deliver(txn, OwnTransaction.Decision.COMMIT); // SI: its worker commits now; the next entry waits
            position.committedAhead(txn, index);
            position.handled(index);
            return;
        }
        // Another replica's write-set, or one of this replica's earlier start that never committed here.
        remote.take(entry, writeSet);
    }

    /** Round-robin: certifies the write-set; an own one learns its fate, another replica's winner is applied here. */
    private void certify(long index, WriteSet writeSet, boolean ownLive) throws SQLException, InterruptedException {
        long txn = writeSet.txnId();
        CpuClock.Timing start = cpu.start();
        AppliedPosition.Write write = position.forOne(index, txn);
        boolean won = certification.deliver(writeSet, ownLive, applier, connection, write.bookkeeping());
        if (ownLive) {
            position.committedAhead(txn, index); // a winner's worker committed it with its committed_ahead row
        }
        if (!ownLive && won) { // a loser's origin executes it again; nothing to apply
            if (!writeSet.changes().isEmpty()) {
                statistics.applied(writeSet.procedure(), start.stop());
            }
            visible(txn);
        }
        position.handled(index);
        if (!ownLive && won && !writeSet.changes().isEmpty()) {
            position.committed(write); // the winner's transaction recorded it
        }
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
        ReplicaState.startLog(connection, logId);
        connection.commit();
        if (recorded != null) {
            LOG.info(
                    "{}: a new write-set log ({}; this replica had applied up to entry {} of log {}): its position "
                            + "starts again from 0",
                    node,
                    logId,
                    position.persisted(),
                    recorded);
        }
        position.restartAtZero();
    }

    /** Applies what is taken, and waits until every entry handed over so far is reflected here. */
    private void drain() throws SQLException, InterruptedException {
        remote.drain();
    }

    /** Records the position (and forgets what it passed) in a transaction of its own. */
    private void flushPosition() throws SQLException, InterruptedException {
        drain(); // the appliers' transactions may write the position row too
        AppliedPosition.Write write = position.flush();
        if (write == null) {
            return;
        }
        applier.apply(List.of(), write.bookkeeping());
        connection.commit();
        position.committed(write);
    }

    private void visible(long txn) {
        visibility.markVisible(txn);
        progress.visible(txn);
    }
}
