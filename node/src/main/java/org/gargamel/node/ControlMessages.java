package org.gargamel.node;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.group.LogUnavailableException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Agreement;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.EpochClaim;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.NodeRefused;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Superseded;
import org.gargamel.common.wire.TakeOver;
import org.gargamel.common.wire.VisibilityQuery;
import org.gargamel.node.execution.Agreements;
import org.gargamel.node.execution.Worker;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.WriteSetLog;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node does with each message of the control channel (docs/protocol.md): a call to its worker's queue, a
 * site scheduler's agreement or visibility query, a scheduler's decision or claim into the write-set log, a refusal
 * that stops the node, a drain status to the membership; and the views, to the membership.
 */
final class ControlMessages {
    private static final Logger LOG = LoggerFactory.getLogger(ControlMessages.class);

    private final String name;
    private final String site;
    private final Supervisor supervisor;
    private final ActiveScheduler activeScheduler;
    private final List<Worker> workers;
    private final Visibility visibility;
    private final OwnTransactions own;
    private final Agreements agreements;
    private final ProgressReporter progress;
    private final WriteSetLog log;
    private final SchedulerMembership membership;
    private final UnloggedDecisions unlogged;
    private final BiConsumer<Address, Message> send;
    private final BooleanSupplier closed;

    ControlMessages(
            String name,
            String site,
            Supervisor supervisor,
            ActiveScheduler activeScheduler,
            List<Worker> workers,
            Visibility visibility,
            OwnTransactions own,
            Agreements agreements,
            ProgressReporter progress,
            WriteSetLog log,
            SchedulerMembership membership,
            UnloggedDecisions unlogged,
            BiConsumer<Address, Message> send,
            BooleanSupplier closed) {
        this.name = name;
        this.site = site;
        this.supervisor = supervisor;
        this.activeScheduler = activeScheduler;
        this.workers = workers;
        this.visibility = visibility;
        this.own = own;
        this.agreements = agreements;
        this.progress = progress;
        this.log = log;
        this.membership = membership;
        this.unlogged = unlogged;
        this.send = send;
        this.closed = closed;
    }

    /** The control channel's receiver; a message it cannot handle stops the node. */
    MessageEndpoint endpoint() {
        return new MessageEndpoint(name + " control", supervisor::fail)
                .on(Execute.class, MessageType.EXECUTE, this::dispatch)
                // From a site scheduler: where the schedule log placed a provisional call (docs/multisite.md).
                .on(Agreement.class, MessageType.AGREEMENT, (source, agreement) -> agreements.decided(agreement))
                .on(VisibilityQuery.class, MessageType.VISIBILITY_QUERY, this::answerVisibility)
                // From the scheduler: settle a departed node's transactions in the log's order, at every node alike.
                .on(Abandon.class, MessageType.ABANDON, (source, decision) -> appendDecision(decision))
                // A scheduler taking over: its claim goes into the log, whose order decides (every node appends a
                // copy; the first one counts).
                .on(TakeOver.class, MessageType.TAKE_OVER, (source, takeOver) -> appendClaim(source))
                .on(
                        NodeRefused.class,
                        MessageType.NODE_REFUSED,
                        (source, refused) -> supervisor.fail(
                                new ConfigException(name + " was refused by the scheduler: " + refused.reason())))
                .on(DrainStatus.class, MessageType.DRAIN_STATUS, (source, status) -> membership.answered(status))
                .onView(membership::announce);
    }

    /** A call from the scheduler: to its worker's queue, or rejected at once if that worker does not exist. */
    private void dispatch(Address source, Execute call) {
        if (activeScheduler.superseded(source)) {
            // A scheduler the log superseded, still alive (it was cut off): its call never runs here (the worker drops
            // it as stale), and it is told, so that it stops and its clients follow the active scheduler.
            send.accept(source, new Superseded(name, activeScheduler.epoch()));
        }
        if (call.worker() < 0 || call.worker() >= workers.size()) {
            send.accept(
                    call.client(),
                    CallOutcome.rejected(
                            call.callId(),
                            call.txnId(),
                            name + " has no worker " + call.worker() + " (it runs " + workers.size() + ")"));
            return;
        }
        workers.get(call.worker()).submit(call);
    }

    /**
     * A scheduler asks which of its transactions are visible here: a site scheduler that took over, for the calls of
     * the schedule log (docs/multisite.md), or one that still counts this node after it forgot reports it could not
     * send (ProgressReporter). The visible ones go back at once in a PROGRESS; the others are reported as usual when
     * they become visible. Not an own PSI commit whose entry the log has not yet brought back: it is visible here
     * before the log holds it, and reported, as usual, only then (a report now would count it as done at its node,
     * so a death of this node before its entry would leave it unsettled).
     */
    private void answerVisibility(Address source, VisibilityQuery query) {
        long[] visible = Arrays.stream(query.transactions())
                .filter(txn -> visibility.isVisible(txn) && !own.awaitsEntry(txn))
                .toArray();
        send.accept(source, new Progress(name, visible, progress.logPosition()));
    }

    /**
     * From the scheduler: its decision goes into the log (each survivor appends a copy; the first decides). If the log
     * has no leader or no majority, a serving node stops (docs/node.md, Start-up); one not serving (joining, catching
     * up) hands the decision to {@link UnloggedDecisions}, which appends it again until the log takes it; at once if no
     * leader is known, so that this thread never waits for one.
     */
    private void appendDecision(Abandon decision) {
        if (!membership.serving() && log.leader().isEmpty()) {
            // No leader known: RaftLog.append would wait for one on this thread, the control channel's receiver, and
            // every later message from the scheduler (a join's DRAIN_STATUS, resent ABANDONs) would wait behind it.
            unlogged.add(decision);
            return;
        }
        Futures.whenDone(log.append(decision, decision.describe()), (done, failure) -> {
            if (failure == null) {
                return;
            }
            if (unwrap(failure) instanceof LogUnavailableException && !membership.serving()) {
                unlogged.add(decision);
            } else {
                supervisor.fail(failure);
            }
        });
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private void appendClaim(Address claimant) {
        Futures.whenDone(
                log.append(new EpochClaim(claimant, site), "the claim of scheduler " + claimant), (done, failure) -> {
                    if (failure != null && !closed.getAsBoolean()) {
                        LOG.warn(
                                "{}: could not append the claim of scheduler {}: {}",
                                name,
                                claimant,
                                failure.toString());
                    }
                });
    }
}
