package org.gargamel.node.writeset;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This node's update transactions whose fate waits for their own write-set's delivery in the total order: in SI mode
 * a transaction commits only then (commit order = total order); in round-robin mode the delivery certifies it. A
 * worker {@link #register registers} a transaction before broadcasting its write-set; the apply loop
 * {@link #deliver decides} it when the write-set comes back.
 */
public final class OwnTransactions {
    private final Map<Long, OwnTransaction> pending = new ConcurrentHashMap<>();
    /** Calls answered only once the apply loop meets their transaction's entry (by transaction). */
    private final Map<Long, Confirmation> confirmations = new ConcurrentHashMap<>();
    /** PSI transactions a worker commits without waiting for their entry, and has not finished ({@link #committing}). */
    private final Set<Long> committing = ConcurrentHashMap.newKeySet();

    /**
     * A call whose client hears its outcome only once its transaction's entry is committed in the log <em>and</em> no
     * ABANDON of that transaction comes before it there: such a decision means the cluster settled the transaction as
     * never having happened, and the call is then run again elsewhere, so this node must not answer. Answered at most
     * once, from whichever thread first sees the entry in log order. With {@code effects} (PSI), the transaction
     * committed here; without, it is a rolled-back call, whose entry is empty.
     */
    public static final class Confirmation {
        private final boolean effects;
        private final Runnable reply;
        private final AtomicBoolean answered = new AtomicBoolean();

        Confirmation(boolean effects, Runnable reply) {
            this.effects = effects;
            this.reply = reply;
        }

        public boolean effects() {
            return effects;
        }

        /** Sends the outcome, unless it was sent already. */
        public void answer() {
            if (answered.compareAndSet(false, true)) {
                reply.run();
            }
        }
    }

    /** Registers {@code txn}, whose write-set touches {@code rows} (round-robin; empty otherwise). */
    public OwnTransaction register(long txn, Set<String> rows) {
        OwnTransaction transaction = new OwnTransaction(rows);
        pending.put(txn, transaction);
        return transaction;
    }

    /**
     * The apply loop's side: decides {@code txn} ({@code won} false only for a round-robin loser) and waits until its
     * worker has committed or rolled back, so the next delivered write-set applies after it. A transaction that was
     * never registered (an empty write-set of a failed call) needs nothing.
     */
    public void deliver(long txn, OwnTransaction.Decision decision) throws InterruptedException {
        OwnTransaction transaction = pending.remove(txn);
        if (transaction != null) {
            transaction.decide(decision);
            transaction.awaitFinished();
        }
    }

    /**
     * {@code txn}'s outcome waits for its entry (see {@link Confirmation}). With {@code effects} (PSI), it committed
     * here: its entry, when the apply loop meets it, needs no applying. Register before appending the entry.
     */
    public void confirmOnEntry(long txn, boolean effects, Runnable reply) {
        confirmations.put(txn, new Confirmation(effects, reply));
    }

    /**
     * A worker runs {@code txn}, which it commits here without waiting for its entry (PSI): from now until
     * {@link #doneCommitting}, this replica holds it or may hold it soon, whatever the worker knows. A partition that
     * cuts a node off also cuts it off its database: PostgreSQL may have committed while the answer is held back for
     * seconds, or the COMMIT still goes out once the link is back. An ABANDON of the transaction meanwhile finds no
     * confirmation, yet the replica holds it (a chaos run, partition kind: the next entry deleting the same new orders
     * found none, and the node stopped for good); AbandonSettlement counts such a transaction as committed.
     */
    public void committing(long txn) {
        committing.add(txn);
    }

    /**
     * The worker is done with {@code txn}: it registered the confirmation of its commit first
     * ({@link #confirmOnEntry}), or it rolls the transaction back and will not commit it.
     */
    public void doneCommitting(long txn) {
        committing.remove(txn);
    }

    /**
     * Whether a worker commits {@code txn} and is not done with it: it may be committed here. Read it before the
     * confirmation: a worker registers that first, then is done, so one of the two always shows a commit
     * (WriteSetLogTest.aPsiCommitInDoubtWhenTheLogAbandonsItsTransactionTaintsItsNode).
     */
    public boolean mayHaveCommitted(long txn) {
        return committing.contains(txn);
    }

    /** The confirmation registered for {@code txn} by this start of the node, or null; keeps it. */
    public Confirmation confirmation(long txn) {
        return confirmations.get(txn);
    }

    /** The confirmation registered for {@code txn} by this start of the node, or null; forgets it. */
    public Confirmation takeConfirmation(long txn) {
        return confirmations.remove(txn);
    }

    /**
     * Whether {@code txn}'s outcome waits for its entry and has not been sent: a PSI call's client hears nothing before
     * a majority holds its write-set ({@code WriteSetLogTest.aCallIsAcknowledgedOnlyOnceAMajorityOfTheReplicasHoldsItsWriteSet}).
     */
    public boolean awaitsEntry(long txn) {
        Confirmation confirmation = confirmations.get(txn);
        return confirmation != null && !confirmation.answered.get();
    }

    /** Whether a transaction below {@code floor} still waits for its entry (a call of an earlier scheduler). */
    public boolean anyBefore(long floor) {
        for (long txn : pending.keySet()) {
            if (txn < floor) {
                return true;
            }
        }
        for (long txn : confirmations.keySet()) {
            if (txn < floor) {
                return true;
            }
        }
        return false;
    }

    public boolean isPending(long txn) {
        return pending.containsKey(txn);
    }

    /** Round-robin: dooms every pending transaction that touches one of {@code rows} (see {@link OwnTransaction}). */
    public void doomHoldersOf(Set<String> rows) {
        for (OwnTransaction transaction : pending.values()) {
            transaction.doomIfTouches(rows);
        }
    }
}
