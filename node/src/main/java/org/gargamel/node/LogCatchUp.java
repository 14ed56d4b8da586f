package org.gargamel.node;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.LogMark;
import org.gargamel.node.apply.ApplyLoop;
import org.gargamel.node.writeset.PatientAppend;
import org.gargamel.node.writeset.WriteSetLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits until this replica reflects every entry the write-set log committed before now: a mark of this start is
 * appended and waited for (the log is replayed and the missing entries come from the leader meanwhile). Only then
 * does the node announce itself, at start and at each join of a scheduler, so a node never serves on a stale replica.
 */
final class LogCatchUp {
    private static final Logger LOG = LoggerFactory.getLogger(LogCatchUp.class);

    private final String name;
    private final ApplyLoop applier;
    private final Supervisor supervisor;
    private final BooleanSupplier closed;
    private final PatientAppend patience;

    LogCatchUp(
            String name,
            ApplyLoop applier,
            WriteSetLog log,
            Supervisor supervisor,
            BooleanSupplier closed,
            Duration reportEvery) {
        this.name = name;
        this.applier = applier;
        this.patience = new PatientAppend(name, log, reportEvery);
        this.supervisor = supervisor;
        this.closed = closed;
    }

    /** Returns once the mark is applied here; fails at once if the node fails meanwhile. */
    void run() throws Exception {
        long nonce = new SecureRandom().nextLong();
        CompletableFuture<Long> applied = applier.markApplied(nonce);
        long started = System.nanoTime();
        appendMark(new LogMark(name, nonce));
        while (!applied.isDone()) {
            if (supervisor.failure().isDone()) {
                throw new IllegalStateException(
                        name + " failed while catching up with the write-set log: "
                                + supervisor.failure().getNow(null).getMessage(),
                        supervisor.failure().getNow(null));
            }
            try {
                // Wakes at once if the node fails meanwhile (a replica found tainted while catching up).
                CompletableFuture.anyOf(applied, supervisor.failure()).get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                LOG.info(
                        "{}: catching up with the write-set log ({} s; applied up to entry {})",
                        name,
                        (System.nanoTime() - started) / 1_000_000_000,
                        applier.persistedIndex());
            }
        }
        LOG.info("{}: caught up with the write-set log at entry {}", name, applied.get());
    }

    /**
     * Appends the catch-up mark, waiting as long as it takes for the log to have a leader and a majority, and saying
     * every 10 s that it waits and why ({@link PatientAppend}): a node that is not serving answers nobody, so, unlike a
     * serving node, it gains nothing by stopping. After a partition heals, the log's group can take longer to merge
     * than one append may wait (a node rebuilt from a peer meanwhile appended its mark then: issue 43). A mark appended
     * twice is harmless: the second copy completes nothing.
     */
    private void appendMark(LogMark mark) throws Exception {
        if (!patience.append(
                mark,
                "the catch-up mark",
                () -> closed.getAsBoolean() || supervisor.failure().isDone())) {
            Throwable failure = supervisor.failure().getNow(null);
            throw new IllegalStateException(
                    name
                            + (failure == null
                                    ? " was closed while waiting for the write-set log to take its catch-up mark"
                                    : " failed while waiting for the write-set log to take its catch-up mark: "
                                            + failure.getMessage()),
                    failure);
        }
    }
}
