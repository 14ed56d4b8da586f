package org.gargamel.node.writeset;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.gargamel.common.group.LogUnavailableException;
import org.gargamel.common.wire.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends an entry that a node which is not serving must get into the write-set log, however long the log has no
 * leader or no majority: after a partition heals, the log's group can take longer to merge than one append may wait
 * (RaftLog's {@code leaderWait} and {@code giveUp}), and a node that answers nobody gains nothing by stopping. So it
 * appends again after each {@link LogUnavailableException}, and says every {@code reportEvery}, at WARN, that it waits,
 * for which entry and why (no leader known, or the leader has not committed it), until the log commits the entry or
 * the caller's {@code stop} holds. Each attempt may leave a copy in the log; its readers ignore the second one.
 *
 * <p>It asks for an append only while it knows a leader: RaftLog's append waits for one on the caller's thread, for up
 * to {@code leaderWait}, and would hold back the reports meanwhile. Guarded by
 * {@code WriteSetLogTest.aNodeRebuiltDuringAPartitionWaitsForALeaderSayingSoUntilOneTakesItsCatchUpMark} and
 * {@code WriteSetLogTest.aJoiningNodeHandedAnAbandonWithNoMajorityWaitsForOneInsteadOfStopping}.
 */
public final class PatientAppend {
    /** How often a wait is reported by default (issue 43: every 10 s). */
    public static final Duration REPORT_EVERY = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(PatientAppend.class);
    /** How often the wait looks again for a leader, a commit, or its caller's stop. */
    private static final long POLL_MILLIS = 50;

    private final String node;
    private final WriteSetLog log;
    private final Duration reportEvery;

    public PatientAppend(String node, WriteSetLog log, Duration reportEvery) {
        this.node = node;
        this.log = log;
        this.reportEvery = reportEvery;
    }

    /**
     * Appends {@code entry} ({@code what} names it in the reports) until the log commits it: returns true then, or
     * false as soon as {@code stop} holds (checked at least every 50 ms). Any failure but the log's unavailability
     * is thrown at once (the channel closed: the node is stopping).
     */
    public boolean append(Message entry, String what, BooleanSupplier stop) throws Exception {
        long started = System.nanoTime();
        long nextReport = started + reportEvery.toNanos();
        String why = "no leader of the write-set log known yet";
        CompletableFuture<Void> attempt = null;
        while (true) {
            if (stop.getAsBoolean()) {
                return false;
            }
            if (attempt == null) {
                Optional<String> leader = log.leader();
                if (leader.isPresent()) {
                    attempt = log.append(entry, what);
                    why = "its leader " + leader.get()
                            + " has not committed it (is a majority of the members reachable?)";
                } else {
                    why = "no leader of the write-set log known (is a majority of its members up and in one group?)";
                }
            }
            if (attempt != null) {
                try {
                    attempt.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
                    return true;
                } catch (TimeoutException e) {
                    // not committed yet
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof LogUnavailableException)) {
                        throw e;
                    }
                    why = e.getCause().getMessage();
                    attempt = null; // appended again once a leader is known
                }
            } else {
                Thread.sleep(POLL_MILLIS);
            }
            if (System.nanoTime() - nextReport >= 0) {
                nextReport += reportEvery.toNanos();
                LOG.warn(
                        "{}: not serving, waiting for the write-set log to take {} ({} s): {}",
                        node,
                        what,
                        (System.nanoTime() - started) / 1_000_000_000,
                        why);
            }
        }
    }
}
