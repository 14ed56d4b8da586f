package org.gargamel.node.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.OwnTransactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's applier (DESIGN.md §5): takes what the write-set group delivered, in the total order, and applies the
 * other replicas' write-sets, each once its back-dependencies are visible here. Its own write-sets decide its
 * waiting transactions (SI commits in the total order; round-robin certifies). ABANDON decisions settle a departed
 * node's unreported transactions. A write-set that cannot be applied means this replica would diverge: that is a
 * {@link FatalException} and the node stops.
 */
public final class ApplyLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ApplyLoop.class);

    private final String node;
    private final Connection connection;
    private final WriteSetApplier applier;
    private final Visibility visibility;
    private final OwnTransactions own;
    /** Round-robin only, else null. */
    private final Certification certification;

    private final ProgressReporter progress;
    private final NodeStatistics statistics;
    private final LinkedBlockingQueue<Message> delivered = new LinkedBlockingQueue<>();
    /**
     * Transactions settled as done with no effect ({@link Abandon}) before their write-set was delivered; a write-set
     * of theirs delivered later is discarded, in the same place of the total order at every node.
     */
    private final Set<Long> abandoned = new HashSet<>();

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
    }

    /** The write-set group delivered {@code message} (a write-set or an ABANDON). JGroups' delivery thread. */
    public void deliver(Message message) {
        delivered.add(message);
    }

    /** The loop, run by a supervised thread until interrupted. */
    public void run() throws InterruptedException {
        while (true) {
            Message next = delivered.take();
            if (next instanceof Abandon decision) {
                settle(decision);
                continue;
            }
            WriteSet writeSet = (WriteSet) next;
            if (abandoned.remove(writeSet.txnId())) {
                LOG.warn(
                        "{}: discarded the write-set of transaction {} from {}, delivered after it was abandoned",
                        node,
                        writeSet.txnId(),
                        writeSet.origin());
                continue;
            }
            try {
                if (certification != null) {
                    certify(writeSet);
                } else {
                    applyScheduled(writeSet);
                }
            } catch (SQLException | RuntimeException e) {
                throw new FatalException(
                        node + " cannot apply the write-set of transaction " + writeSet.txnId()
                                + " (" + writeSet.procedure() + ") from " + writeSet.origin()
                                + " (the replica would diverge): "
                                + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * A departed node's unreported transactions, in the total order: each one not yet visible here (its write-set not
     * delivered before this) is done with no effect, so its dependents may start; its write-set, if it ever comes, is
     * discarded. Every node decides alike, since all deliver the same sequence.
     */
    private void settle(Abandon decision) {
        int settled = 0;
        for (long txn : decision.transactions()) {
            if (!visibility.isVisible(txn)) {
                abandoned.add(txn);
                visible(txn);
                settled++;
            }
        }
        if (settled > 0) { // copies of the decision (one per survivor) find nothing left to settle
            LOG.info(
                    "{}: {} left; {} of its {} unreported transaction(s) settled as done with no effect",
                    node,
                    decision.origin(),
                    settled,
                    decision.transactions().length);
        }
    }

    private void applyScheduled(WriteSet writeSet) throws SQLException, InterruptedException {
        if (writeSet.origin().equals(node)) {
            own.deliver(writeSet.txnId(), true); // SI: its worker commits now; the next write-set waits for that
            return;
        }
        visibility.awaitAll(writeSet.backDependencies());
        if (!writeSet.changes().isEmpty()) {
            long start = System.nanoTime();
            applier.apply(writeSet.changes());
            connection.commit();
            statistics.applied(writeSet.procedure(), System.nanoTime() - start);
        }
        visible(writeSet.txnId());
    }

    private void certify(WriteSet writeSet) throws SQLException, InterruptedException {
        boolean ownTransaction = writeSet.origin().equals(node);
        long start = System.nanoTime();
        boolean won = certification.deliver(writeSet, ownTransaction, applier, connection);
        if (!ownTransaction && won) { // a loser's origin executes it again; nothing to apply
            if (!writeSet.changes().isEmpty()) {
                statistics.applied(writeSet.procedure(), System.nanoTime() - start);
            }
            visible(writeSet.txnId());
        }
    }

    private void visible(long txn) {
        visibility.markVisible(txn);
        progress.visible(txn);
    }
}
