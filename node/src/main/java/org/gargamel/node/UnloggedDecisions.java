package org.gargamel.node;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BooleanSupplier;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.Abandon;
import org.gargamel.node.writeset.PatientAppend;
import org.gargamel.node.writeset.WriteSetLog;

/**
 * The scheduler's ABANDON decisions that this node, while not serving (joining a scheduler, catching up), could not get
 * into the write-set log because it found no leader or no majority: each is appended again, on one supervised thread,
 * until the log takes it ({@link PatientAppend}: a line every 10 s saying so), rather than the node stopping for good
 * (issue 43). Every survivor appends a copy of a decision and the first one decides, so a late copy changes nothing.
 * If the node is serving before the log took a decision, the decision is appended once more as a serving node appends
 * (the log's own waits), and the node stops if that append fails, as a serving node does (docs/node.md, Start-up).
 * Guarded by
 * {@code WriteSetLogTest.aJoiningNodeHandedAnAbandonWithNoMajorityWaitsForOneInsteadOfStopping}.
 */
final class UnloggedDecisions {
    private final PatientAppend patience;
    private final WriteSetLog log;
    private final Supervisor supervisor;
    private final BooleanSupplier serving;
    private final BooleanSupplier closed;
    /** Unbounded, but fed only by the scheduler's ABANDONs, one per departed node, while the log has no leader. */
    private final BlockingQueue<Abandon> unlogged = new LinkedBlockingQueue<>();

    UnloggedDecisions(
            PatientAppend patience,
            WriteSetLog log,
            Supervisor supervisor,
            BooleanSupplier serving,
            BooleanSupplier closed) {
        this.patience = patience;
        this.log = log;
        this.supervisor = supervisor;
        this.serving = serving;
        this.closed = closed;
    }

    /** Hands over {@code decision}, whose append found the log unavailable, to be appended again. */
    void add(Abandon decision) {
        unlogged.add(decision);
    }

    /** The supervised thread's body: appends each decision handed over until the log takes it or the node stops. */
    void run() throws Exception {
        while (true) {
            Abandon decision = unlogged.take();
            boolean taken;
            try {
                taken = patience.append(
                        decision,
                        decision.describe(),
                        () -> closed.getAsBoolean()
                                || serving.getAsBoolean()
                                || supervisor.failure().isDone());
            } catch (InterruptedException e) {
                throw e; // the node stops: an interrupt swallowed here left this thread waiting on take() for ever
            } catch (Exception e) {
                if (closed.getAsBoolean()) {
                    return; // the log closed under it: the node is stopping
                }
                throw e;
            }
            if (!taken && serving.getAsBoolean() && !closed.getAsBoolean()) {
                // Serving now: appended as a serving node appends; an unavailable log stops it then.
                Futures.whenDone(log.append(decision, decision.describe()), (done, failure) -> {
                    if (failure != null && !closed.getAsBoolean()) {
                        supervisor.fail(failure);
                    }
                });
            }
        }
    }
}
