package org.gargamel.node.writeset;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's update transactions whose fate waits for their own write-set's delivery in the total order: in SI mode
 * a transaction commits only then (commit order = total order); in round-robin mode the delivery certifies it. A
 * worker {@link #register registers} a transaction before broadcasting its write-set; the apply loop
 * {@link #deliver decides} it when the write-set comes back.
 */
public final class OwnTransactions {
    private final Map<Long, OwnTransaction> pending = new ConcurrentHashMap<>();
    /** PSI: committed here by this start of the node, entry not yet met by the apply loop. */
    private final Set<Long> committedHere = ConcurrentHashMap.newKeySet();

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
    public void deliver(long txn, boolean won) throws InterruptedException {
        OwnTransaction transaction = pending.remove(txn);
        if (transaction != null) {
            transaction.decide(won);
            transaction.awaitFinished();
        }
    }

    /** PSI: {@code txn} committed here; its entry, when the apply loop meets it, needs no applying. */
    public void committedHere(long txn) {
        committedHere.add(txn);
    }

    /** Whether {@code txn} committed here by this start of the node (and forgets it: its entry is being met). */
    public boolean takeCommittedHere(long txn) {
        return committedHere.remove(txn);
    }

    /** Whether a worker of this start of the node awaits {@code txn}'s entry. */
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
