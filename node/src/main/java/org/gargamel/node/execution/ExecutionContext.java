package org.gargamel.node.execution;

import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.RulesCheck;
import org.gargamel.node.access.ReadConnections;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.AnsweredCalls;
import org.gargamel.node.writeset.CommitOrder;
import org.gargamel.node.writeset.LogBarrier;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.WriteSetLog;

/**
 * What every worker of a node shares: the node's name (for messages and write-sets), its isolation, the declared
 * argument types, the write-set log with the PSI commit order, the own transactions awaiting their entry, visibility,
 * statistics, how a call ends ({@link CallCompletion}), and the rules with what to do when an executed call writes
 * outside them ({@code rulesCheck}: {@link RulesCheck#OFF} outside gargamel mode), whether and how ad-hoc queries
 * run, the roles calls and reads run as with the connections reads use ({@link ReadConnections}), how declared increments are shipped and probed (issue 18), and where the schedule log placed the provisional
 * calls of a multi-site cluster ({@link Agreements}), and the barrier a spanning call of site-owned classes waits
 * behind ({@link LogBarrier}).
 */
public record ExecutionContext(
        String node,
        Isolation isolation,
        ArgumentTypes types,
        Visibility visibility,
        WriteSetLog log,
        CommitOrder commitOrder,
        OwnTransactions own,
        NodeStatistics statistics,
        CallCompletion completion,
        ActiveScheduler activeScheduler,
        AnsweredCalls answeredCalls,
        ClassifierRules rules,
        RulesCheck rulesCheck,
        AdHocReads adHocReads,
        ReadConnections reads,
        IncrementPolicy increments,
        Agreements agreements,
        LogBarrier logBarrier,
        boolean commitsAfterLog) {
    /*
     * commitsAfterLog: an update call's transaction commits here only once the log delivered its write-set (SI; and
     * PSI with a write-set log per site, docs/multisite.md). PSI otherwise commits first and hands its write-set over
     * in its commit order: a node that dies between the two keeps a commit no log holds, which only a live scheduler
     * can settle (it abandons the call, and the node is rebuilt); when a whole site dies at once no scheduler knows the
     * call, so there PSI commits after the log too.
     */

    /**
     * The outcome of an earlier run of {@code call} that took effect (the same client and call id, resubmitted after a
     * scheduler's failover), or null.
     */
    CallOutcome earlierOutcome(Execute call) {
        return answeredCalls.find(call.client(), call.callId());
    }

    boolean si() {
        return isolation == Isolation.SI;
    }

    /** Whether an update call commits here only after the log delivered its write-set (see the record's comment). */
    boolean afterLog() {
        return commitsAfterLog || si();
    }

    /**
     * The call's client hears {@code outcome}, and the scheduler that it is done here, only when the apply loop meets
     * its transaction's entry (see {@link OwnTransactions.Confirmation}); {@code effects}: PSI, the transaction
     * committed here. Call before the entry is appended.
     */
    void replyOnEntry(Execute call, CallOutcome outcome, boolean effects) {
        own.confirmOnEntry(call.txnId(), effects, () -> completion.finish(call, outcome));
    }

    /** Appends a write-set whose place the log decides; the node stops if the log does not take it. */
    void append(org.gargamel.common.wire.WriteSet writeSet) {
        long sent = System.nanoTime();
        Futures.whenDone(log.append(writeSet, "the write-set of transaction " + writeSet.txnId()), (done, failure) -> {
            if (failure != null) {
                completion.fail(failure);
            } else {
                statistics.logCommitted(System.nanoTime() - sent);
            }
        });
    }
}
