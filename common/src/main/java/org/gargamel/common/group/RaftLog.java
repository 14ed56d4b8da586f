package org.gargamel.common.group;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Futures;
import org.jgroups.JChannel;
import org.jgroups.protocols.raft.DynamicMembership;
import org.jgroups.protocols.raft.REDIRECT;
import org.jgroups.protocols.raft.RaftLeaderException;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;

/**
 * One member's end of a replicated log on jgroups-raft: the nodes' write-set log (DESIGN.md §6) and the sites'
 * schedule log (docs/multisite.md). An entry is committed once a majority of the members hold it, and every member's
 * {@link StateMachine} is handed the committed entries in one order: a uniform total order, so an entry once committed
 * survives the death of any minority of the members.
 *
 * <p>An append goes to the leader (REDIRECT). While there is no leader (an election), nothing was sent and the append
 * is tried again. An append sent to a leader that then dies is neither committed nor failed: it may or may not be in
 * the log. So an append not committed within {@link Patience#resendAfter} is sent again, until {@link Patience#giveUp};
 * the log may then hold an entry twice, and its readers must ignore the second copy (every member alike, since all read
 * the same log). An append still not committed after {@link Patience#giveUp} is a {@link LogUnavailableException}.
 */
public final class RaftLog implements AutoCloseable {
    /**
     * How long an append waits. {@code leaderWait}: for a leader to exist (elections take a few hundred milliseconds);
     * {@code resendAfter}: for a sent append to be committed before it is sent again (its leader may have died);
     * {@code giveUp}: for an append, re-sends included, before the log counts as unavailable.
     */
    public record Patience(Duration leaderWait, Duration resendAfter, Duration giveUp) {
        public static final Patience DEFAULT =
                new Patience(Duration.ofSeconds(30), Duration.ofSeconds(3), Duration.ofSeconds(60));
    }

    private final String member;
    private final String logName;
    private final JChannel channel;
    private final RaftHandle raft;
    private final Patience patience;

    /**
     * @param member  this member's name, for errors
     * @param logName what the log is called in errors, e.g. "write-set log"
     */
    public RaftLog(String member, String logName, JChannel channel, StateMachine stateMachine, Patience patience) {
        this.member = member;
        this.logName = logName;
        this.channel = channel;
        this.raft = new RaftHandle(channel, stateMachine);
        this.patience = patience;
    }

    /** Joins {@code cluster}; the log's committed entries already held here are applied (replayed) first. */
    public void connect(String cluster) throws Exception {
        channel.connect(cluster);
    }

    /** The index of the first entry the log holds (1 unless a snapshot truncated it). */
    public long firstIndex() {
        return raft.log().firstAppended();
    }

    public boolean isLeader() {
        return raft.isLeader();
    }

    /** The leader as this member knows it (its logical name), or empty while it knows none (an election, no majority). */
    public Optional<String> leader() {
        return Optional.ofNullable(raft.leader()).map(String::valueOf);
    }

    /**
     * The index of the latest entry this member knows to be committed; the entries up to it have been handed to its
     * state machine (a follower learns of a commit with the leader's next message).
     */
    public long commitIndex() {
        return raft.commitIndex();
    }

    /**
     * Appends {@code entry}; the future completes when it is committed (a majority holds it), or exceptionally with a
     * {@link FatalException} naming {@code what} if that cannot be known (a {@link LogUnavailableException} if no leader
     * or no majority could be reached in time).
     */
    public CompletableFuture<Void> append(byte[] entry, String what) {
        long deadline = System.nanoTime() + patience.leaderWait().toNanos();
        while (true) {
            try {
                CompletableFuture<Void> committed = new CompletableFuture<>();
                await(raft.setAsync(entry, 0, entry.length), entry, what, committed, System.nanoTime());
                return committed;
            } catch (RaftLeaderException e) {
                if (System.nanoTime() > deadline) {
                    return CompletableFuture.failedFuture(noLeader(what, e));
                }
                try {
                    Thread.sleep(20); // an election is under way; nothing was sent
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return CompletableFuture.failedFuture(interrupted);
                }
            } catch (Exception e) {
                return CompletableFuture.failedFuture(cannotAppend(what, e));
            }
        }
    }

    /** Completes {@code committed} when {@code sent} is committed; sends the entry again if that takes too long. */
    private void await(
            CompletableFuture<byte[]> sent, byte[] entry, String what, CompletableFuture<Void> committed, long since) {
        Futures.whenDone(
                sent.orTimeout(patience.resendAfter().toMillis(), TimeUnit.MILLISECONDS), (response, failure) -> {
                    if (failure == null) {
                        committed.complete(null);
                    } else if (System.nanoTime() - since > patience.giveUp().toNanos()) {
                        committed.completeExceptionally(new LogUnavailableException(
                                member + ": the " + logName + " did not commit " + what + " within "
                                        + patience.giveUp().toSeconds() + " s (is a majority of its members up?): "
                                        + failure,
                                failure));
                    } else {
                        resend(entry, what, committed, since);
                    }
                });
    }

    private void resend(byte[] entry, String what, CompletableFuture<Void> committed, long since) {
        try {
            await(raft.setAsync(entry, 0, entry.length), entry, what, committed, since);
        } catch (RaftLeaderException e) {
            if (System.nanoTime() - since > patience.giveUp().toNanos()) {
                committed.completeExceptionally(noLeader(what, e));
            } else {
                CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)
                        .execute(() -> resend(entry, what, committed, since));
            }
        } catch (Exception e) {
            committed.completeExceptionally(cannotAppend(what, e));
        }
    }

    private FatalException cannotAppend(String what, Exception e) {
        return new FatalException(member + ": cannot append " + what + " to the " + logName + ": " + e, e);
    }

    private LogUnavailableException noLeader(String what, Exception e) {
        return new LogUnavailableException(
                member + ": no leader of the " + logName + " for " + what + " (is a majority of its members up?): "
                        + e.getMessage(),
                e);
    }

    /** The members as this member knows them: the configured ones, changed by every membership entry it applied. */
    public List<String> members() {
        return List.copyOf(raft.raft().members());
    }

    /**
     * Asks the leader (through REDIRECT, from any member, a learner too) to make {@code raftId} a member; returns once
     * the leader committed the change, throws if it did not within {@code timeout} (no leader, or none answered: the
     * caller tries again). A member already there is not added twice.
     */
    public void addMember(String raftId, Duration timeout) throws Exception {
        membership().addServer(raftId).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** As {@link #addMember}, to remove {@code raftId}; removing one that is not a member changes nothing. */
    public void removeMember(String raftId, Duration timeout) throws Exception {
        membership().removeServer(raftId).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private DynamicMembership membership() {
        REDIRECT redirect = channel.getProtocolStack().findProtocol(REDIRECT.class);
        if (redirect == null) {
            throw new IllegalStateException("the " + logName + "'s channel has no REDIRECT protocol");
        }
        return redirect;
    }

    @Override
    public void close() {
        channel.close();
    }
}
