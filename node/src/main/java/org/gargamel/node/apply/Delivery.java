package org.gargamel.node.apply;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.EpochClaim;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Shipped;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.shipping.ShippedPositions;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.OwnTransactions;

/**
 * What happens on jgroups-raft's thread when the log commits an entry, before the loop takes it; never blocks. A call
 * of this node whose entry this is gets its answer now, without waiting for the entries before it to be applied here,
 * unless an ABANDON of its transaction came first in the log (then it never gets one from here).
 */
final class Delivery {
    private final String node;
    private final OwnTransactions own;
    private final ActiveScheduler activeScheduler;
    private final ShippedPositions shipped;

    /** Transactions an ABANDON named, in log order as delivered. */
    private final Map<Long, Boolean> abandonedInLog = new Recent<>(AbandonSettlement.RECENT_OUTCOMES);

    /** Sends this node's answers whose entries are committed. */
    private final ExecutorService answers;

    Delivery(String node, OwnTransactions own, ActiveScheduler activeScheduler, ShippedPositions shipped) {
        this.node = node;
        this.own = own;
        this.activeScheduler = activeScheduler;
        this.shipped = shipped;
        this.answers = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, node + "-answers");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The log committed {@code message} at {@code index}, in log order. */
    void committed(Message message, long index) {
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
    }

    /** Stops the thread that sends answers. */
    void close() {
        answers.shutdownNow();
    }
}
