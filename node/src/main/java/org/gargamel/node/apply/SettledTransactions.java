package org.gargamel.node.apply;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Settlement;

/**
 * How the write-set log lately settled a departed node's transactions (ABANDON), each once: abandoned (done with no
 * effect), or standing, with the outcome its write-set carried if this node still held it. The log may hold the same
 * decision more than once (every survivor appends a copy, and the scheduler sends it again until it holds a settlement
 * of each transaction: docs/protocol.md, Membership); a later copy is answered from here, with the answer the first
 * one got, and changes nothing (nothing is applied, marked or discarded twice).
 *
 * <p>Invariant (SettledTransactionsTest, NodeServerTest.aRepeatedAbandonIsAnsweredWithTheSettlementAlreadyReached): a
 * transaction's answer never changes once given. Bounded like the other memories of the log, and filled in log order
 * only, so every replica forgets alike; the scheduler's in-flight limit keeps a decision's transactions far fewer.
 */
final class SettledTransactions {
    /** How one transaction was settled; {@code outcome} null for one abandoned, or standing without an outcome. */
    private record Settled(boolean abandoned, CallOutcome outcome) {}

    private final Map<Long, Settled> settled;

    SettledTransactions(int capacity) {
        this.settled = new Recent<>(capacity);
    }

    /** Whether a decision met earlier in the log settled {@code txn}. */
    boolean contains(long txn) {
        return settled.containsKey(txn);
    }

    /** {@code txn} was settled as done with no effect. */
    void abandoned(long txn) {
        settle(txn, new Settled(true, null));
    }

    /** {@code txn} stands: its write-set came first; {@code outcome} is the one it carried, or null if not held here. */
    void stood(long txn, CallOutcome outcome) {
        settle(txn, new Settled(false, outcome));
    }

    /**
     * The first settlement of {@code txn} stands; a later one changes nothing (a decision naming a transaction twice
     * must not stop every replica's apply loop at once).
     */
    private void settle(long txn, Settled how) {
        settled.putIfAbsent(txn, how);
    }

    /**
     * The answer to a decision of {@code origin}'s {@code transactions}, as this node settled each of them (those it
     * does not remember are left out): the same for every copy of the decision.
     */
    Settlement answer(String node, String origin, long[] transactions) {
        List<Long> abandoned = new ArrayList<>();
        List<CallOutcome> stood = new ArrayList<>();
        List<Long> unknown = new ArrayList<>();
        for (long txn : transactions) {
            Settled how = settled.get(txn);
            if (how == null) {
                continue;
            }
            if (how.abandoned()) {
                abandoned.add(txn);
            } else if (how.outcome() != null) {
                stood.add(how.outcome());
            } else {
                unknown.add(txn);
            }
        }
        return new Settlement(
                node,
                origin,
                abandoned.stream().mapToLong(Long::longValue).toArray(),
                stood,
                unknown.stream().mapToLong(Long::longValue).toArray());
    }
}
