package org.gargamel.node.apply;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Settlement;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.transfer.TaintedReplicaException;
import org.gargamel.node.writeset.OwnTransaction;
import org.gargamel.node.writeset.OwnTransactions;

/**
 * ABANDON decisions, on the loop's thread in log order: a departed node's unreported transactions settled, and what
 * the settlement leaves behind (a write-set that comes after its transaction was abandoned is discarded). Every node
 * decides alike, since all see the same log, and tells the scheduler ({@link Settlement}), which answers the calls
 * that stand and runs the others again (thesis Alg 4). A decision the log holds again is answered as the first copy
 * was ({@link SettledTransactions}): the scheduler sends it until it holds a settlement of every transaction.
 */
final class AbandonSettlement {
    /** Outcomes of the latest write-sets kept for settlements ({@link #recentOutcomes}). */
    static final int RECENT_OUTCOMES = 1 << 16;

    private final ApplyContext context;
    private final OwnTransactions own;
    private final ProgressReporter progress;
    private final CommitOrderChains chains;
    /** Marks this replica's database for a rebuild, and returns the failure to throw. */
    private final Function<String, TaintedReplicaException> tainted;

    /**
     * Transactions settled as done with no effect before their write-set was delivered; a write-set of theirs
     * delivered later is discarded, in the same place of the log at every node.
     */
    private final Set<Long> abandoned = new HashSet<>();

    /**
     * The outcomes carried by the latest write-sets (this node's own included), by transaction: when a node dies after
     * its entry is committed but before it answered its client, the settlement of its transactions gives their
     * outcomes to the scheduler from here. Bounded: the scheduler's in-flight limit keeps a departed node's unanswered
     * transactions far fewer than this, and they are among the latest entries.
     */
    private final Map<Long, CallOutcome> recentOutcomes = new Recent<>(RECENT_OUTCOMES);

    /**
     * How the transactions lately settled were settled: a later copy of the same decision (another survivor's, or the
     * scheduler's again) gets the same answer and settles nothing twice.
     */
    private final SettledTransactions settled = new SettledTransactions(RECENT_OUTCOMES);

    AbandonSettlement(
            ApplyContext context,
            OwnTransactions own,
            ProgressReporter progress,
            CommitOrderChains chains,
            Function<String, TaintedReplicaException> tainted) {
        this.context = context;
        this.own = own;
        this.progress = progress;
        this.chains = chains;
        this.tainted = tainted;
    }

    /** A write-set of {@code txn} carried {@code outcome}, kept for a settlement of its transaction. */
    void outcome(long txn, CallOutcome outcome) {
        recentOutcomes.put(txn, outcome);
    }

    /** Whether {@code txn} was settled as abandoned before its write-set came; if so, it is met now, and not again. */
    boolean takeAbandoned(long txn) {
        return abandoned.remove(txn);
    }

    /**
     * A departed node's unreported transactions, in log order: each one whose write-set the log committed before this
     * stands; every other one is done with no effect, so its dependents may start, and its write-set, if it ever comes
     * (or if it came but still waits for an earlier one of its origin), is discarded.
     *
     * <p>If this node is the one taken for departed (falsely suspected, or cut off and back): a transaction it
     * committed (PSI), or commits and has no answer for yet, that the log settles as abandoned taints it,
     * since this replica now holds (or may hold) what no other does;
     * one waiting for its entry (SI, round-robin, a rolled-back call) is rolled back without an answer to its client.
     *
     * <p>A transaction an earlier copy of the decision settled is left as it is, and every copy met live (not replayed)
     * is answered with a SETTLEMENT of all its transactions as they were settled
     * (NodeServerTest.aRepeatedAbandonIsAnsweredWithTheSettlementAlreadyReached).
     */
    void settle(Abandon decision, boolean replayed) throws InterruptedException {
        List<Long> settledNow = new ArrayList<>();
        List<Long> unknownNow = new ArrayList<>();
        for (long txn : decision.transactions()) {
            if (settled.contains(txn)) {
                continue; // settled by an earlier copy of the decision: answered below as then, nothing done again
            }
            boolean waitingHere = false;
            if (!replayed) {
                boolean inDoubt =
                        own.mayHaveCommitted(txn); // before the confirmation (OwnTransactions#mayHaveCommitted)
                OwnTransactions.Confirmation confirmation = own.takeConfirmation(txn);
                if (committedHere(txn, inDoubt, confirmation)) {
                    throw tainted.apply(context.node() + committed(txn, inDoubt) + " but the write-set log "
                            + "settled it as abandoned (" + decision.describe() + "): this replica holds what the "
                            + "others do not and is rebuilt from a peer before it serves again");
                }
                waitingHere = confirmation != null || own.isPending(txn);
                if (own.isPending(txn)) {
                    own.deliver(txn, OwnTransaction.Decision.ABANDONED); // its worker rolls back and answers nobody
                }
            }
            if (context.visibility().isVisible(txn) && !waitingHere) {
                CallOutcome outcome = recentOutcomes.get(txn);
                settled.stood(txn, outcome);
                if (outcome == null) {
                    unknownNow.add(txn);
                }
                continue;
            }
            if (!dropWaiting(txn)) {
                abandoned.add(txn);
            }
            settled.abandoned(txn);
            if (replayed) {
                context.visibility().markVisible(txn);
            } else {
                context.visible().accept(txn);
            }
            settledNow.add(txn);
        }
        if (replayed) {
            return; // the scheduler heard it before this node restarted, or sends the decision again
        }
        if (!settledNow.isEmpty()) {
            ApplyContext.LOG.info(
                    "{}: {} left; {} of its {} unreported transaction(s) settled as done with no effect",
                    context.node(),
                    decision.origin(),
                    settledNow.size(),
                    decision.transactions().length);
        }
        if (!unknownNow.isEmpty()) {
            ApplyContext.LOG.warn(
                    "{}: {} transaction(s) of {} stand but their outcomes are no longer held here: {}",
                    context.node(),
                    unknownNow.size(),
                    decision.origin(),
                    unknownNow);
        }
        // Every copy of the decision is answered, a later one as the first was: the scheduler sends it again until it
        // holds a settlement of each transaction, and takes a repeated one harmlessly.
        Settlement answer = settled.answer(context.node(), decision.origin(), decision.transactions());
        if (answer.abandoned().length + answer.stood().size() + answer.unknown().length > 0) {
            progress.settled(answer);
        }
    }

    /** A write-set of {@code txn} waiting for an earlier one of its origin is dropped. Returns whether there was one. */
    private boolean dropWaiting(long txn) {
        LogEntry dropped = chains.dropWaiting(txn);
        if (dropped == null) {
            return false;
        }
        ApplyContext.LOG.warn(
                "{}: discarded the write-set of transaction {} (entry {}), which waited for an earlier "
                        + "transaction of its origin settled as abandoned",
                context.node(),
                txn,
                dropped.index());
        return true;
    }

    /**
     * This node's own write-set came after the log settled its transaction as abandoned (this node was taken for
     * departed and the call sent to it was still run): PSI committed it here, which is fatal as in {@link #settle};
     * a transaction still waiting for its entry rolls back, and no client hears from here.
     */
    void discardOwn(long txn) throws InterruptedException {
        boolean inDoubt = own.mayHaveCommitted(txn);
        OwnTransactions.Confirmation confirmation = own.takeConfirmation(txn);
        if (committedHere(txn, inDoubt, confirmation)) {
            throw tainted.apply(context.node() + committed(txn, inDoubt) + " after the write-set log settled "
                    + "it as abandoned: this replica holds what the others do not and is rebuilt from a peer before "
                    + "it serves again");
        }
        if (own.isPending(txn)) {
            own.deliver(txn, OwnTransaction.Decision.ABANDONED);
        }
    }

    /**
     * A transaction of this node's that the log settled as abandoned (its write-set not met yet) but that committed
     * here all the same (PSI: its worker committed after the decision), or may have (its COMMIT unanswered), or null.
     */
    Long committedAfterAbandon() {
        for (long txn : abandoned) {
            boolean inDoubt = own.mayHaveCommitted(txn);
            if (committedHere(txn, inDoubt, own.confirmation(txn))) {
                return txn;
            }
        }
        return null;
    }

    /**
     * Whether this replica holds {@code txn} of its own, or may: recorded in committed_ahead by an earlier start, a PSI
     * commit its worker confirmed ({@code confirmation}), or one a worker commits and is not done with ({@code inDoubt},
     * read before the confirmation). A commit in doubt counts: PostgreSQL may have committed it while a partition held
     * its answer back, and an entry after the decision then fails to apply here (a chaos run, partition kind;
     * WriteSetLogTest.aPsiCommitInDoubtWhenTheLogAbandonsItsTransactionTaintsItsNode).
     */
    private boolean committedHere(long txn, boolean inDoubt, OwnTransactions.Confirmation confirmation) {
        return inDoubt || context.position().isCommittedAhead(txn) || (confirmation != null && confirmation.effects());
    }

    /** How the taint names what this node did with {@code txn}. */
    private static String committed(long txn, boolean inDoubt) {
        return inDoubt
                ? " may have committed transaction " + txn + " (its worker commits it and has no answer yet),"
                : " committed transaction " + txn;
    }
}
