package org.gargamel.common.group;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.raft.AppendEntriesRequest;
import org.jgroups.protocols.raft.ELECTION;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.RaftHeader;
import org.jgroups.protocols.raft.election.BaseElection;
import org.jgroups.protocols.raft.election.LeaderElected;
import org.jgroups.protocols.raft.election.VoteResponse;
import org.jgroups.util.MessageBatch;

/**
 * The Raft logs' leader election: jgroups-raft's ELECTION, under ELECTION's own protocol id (its messages are
 * ELECTION's), made safe for a member whose log is closed and opened again in the same process (a node rebuilt from a
 * peer, docs/node.md, Rebuild). {@code chaos --kinds partition --fault-seed 3} found a rebuilt node that never learned
 * the leader, for two reasons, each repaired here:
 * <ol>
 * <li>Closing the channel ends its voting. ELECTION's stop only asks the voting thread to stop, and the thread does so
 * only once its view holds no majority or a leader is known. The node, coordinator of the merged view after the heal,
 * had started a vote and was closed (tainted) before the vote ended: its voting thread went on for ever with the
 * closed channel's view, each round a new term written to the log files the rebuilt node then opened (term 168
 * against the leader's 2 after two minutes). Here the channel's DISCONNECT, which passes this protocol before RAFT
 * closes the log, marks the protocol stopped, drops the view and waits for the voting thread to end; once stopped,
 * nothing starts the thread again (a late view, a pending stranded check: {@link #startVotingThread}), and a voting
 * thread that finds the protocol stopped ends without a new term ({@link #runVotingProcess}). A round already past
 * its start when the channel closes may still take one term, before the log is closed.</li>
 * <li>A member whose term is above the leader's (one round of an unfinished vote is enough) drops every message of
 * that leader, answering none, and ELECTION votes only when the view changes at its coordinator: such a member never
 * learns the leader. A member that hears a leader of a lower term ({@link LeaderElected}, AppendEntries) while it knows
 * none, and still knows none {@link #STRANDED_MILLIS} later with a majority in its view, holds a vote itself: in a
 * term above its own, which the others take (a higher term), and which elects the member with the most up-to-date log,
 * as every vote of ELECTION does. Learners too (the other sites' logs a node follows are reopened as well): ELECTION
 * lets any coordinator vote, and a learner's vote counts only the members' answers. The vote lasts at most
 * {@link #STRANDED_ROUNDS} rounds, and a member still stranded waits twice as long before the next ({@link
 * #strandedDelayMillis}): a member whose own messages reach only part of the group must not depose the leader every
 * round.</li>
 * </ol>
 * And, for votes that now may overlap: a vote response counts only in the term it answers ({@link #handleMessage};
 * BaseElection counts a late response of an earlier round in the current one). Guarded by {@code RejoinElectionTest}.
 */
public final class RejoinElection extends ELECTION {
    /** How long a member hears only a leader of a lower term before it holds a vote (elections take milliseconds). */
    static final long STRANDED_MILLIS = 2000;

    /** The longest wait before a member still stranded votes again. */
    static final long MAX_STRANDED_MILLIS = 30_000;

    /** Rounds of a stranded member's vote (each a new term, ~ vote timeout when it fails) before it gives up. */
    static final int STRANDED_ROUNDS = 3;

    private static final int UNBOUNDED = -1;

    private final AtomicBoolean strandedCheckPending = new AtomicBoolean();

    /** Between the channel's DISCONNECT (or this protocol's stop) and its next start: no vote starts or goes on. */
    private volatile boolean stopped;

    private volatile Future<?> strandedCheck;

    /** Stranded votes held since this member last knew a leader: the next one waits longer. */
    private final AtomicInteger strandedVotes = new AtomicInteger();

    /** Rounds the running voting thread may still take, or {@link #UNBOUNDED} for ELECTION's own votes. */
    private int roundsLeft = UNBOUNDED; // guarded by this

    public RejoinElection() {
        // ELECTION's id: the headers this protocol sends and reads are ELECTION's, for every member alike.
        setId(ClassConfigurator.getProtocolId(ELECTION.class));
    }

    @Override
    public void start() throws Exception {
        super.start();
        strandedCheckPending.set(false);
        strandedVotes.set(0);
        stopped = false; // a channel can be connected again
    }

    @Override
    public Object down(Event evt) {
        if (evt.getType() == Event.DISCONNECT) {
            // Before the stack stops top-down, so before RAFT (above) closes the log.
            haltVoting();
        }
        return super.down(evt);
    }

    @Override
    public void stop() {
        haltVoting();
        super.stop();
    }

    /** Marks the protocol stopped, drops its view (no majority) and waits for the voting thread to end. */
    private void haltVoting() {
        synchronized (this) {
            stopped = true;
            view = null;
        }
        Future<?> check = strandedCheck;
        if (check != null) {
            check.cancel(false);
        }
        stopVotingThread();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(voteTimeout() + 1000);
        while (isVotingThreadRunning() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (isVotingThreadRunning()) {
            log.warn("%s: the voting thread is still running after the channel closed", local_addr);
        }
    }

    /** A view that comes after the channel closed (a merge in flight) starts no vote. */
    @Override
    protected void handleView(View v) {
        if (stopped) {
            log.debug("%s: closed, ignoring view %s", local_addr, v);
            return;
        }
        super.handleView(v);
    }

    /** Every start of ELECTION's (a view change at the coordinator): unbounded, as ELECTION runs it; none once closed. */
    @Override
    public synchronized BaseElection startVotingThread() {
        if (stopped || view == null) {
            return this;
        }
        roundsLeft = UNBOUNDED;
        return super.startVotingThread();
    }

    /** A stranded member's vote: {@link #STRANDED_ROUNDS} rounds at most; none if a vote runs already. */
    private synchronized boolean startStrandedVote() {
        if (stopped || view == null || isVotingThreadRunning()) {
            return false;
        }
        roundsLeft = STRANDED_ROUNDS;
        super.startVotingThread();
        return true;
    }

    @Override
    protected void runVotingProcess() {
        if (stopped || view == null || strandedVoteOver()) {
            // BaseElection's own shortcut: a voting thread that finds itself interrupted stops, taking no new term.
            Thread.currentThread().interrupt();
        }
        super.runVotingProcess();
    }

    private synchronized boolean strandedVoteOver() {
        if (roundsLeft == UNBOUNDED) {
            return false;
        }
        if (raft.leader() != null) {
            return true;
        }
        if (roundsLeft == 0) {
            log.info(
                    "%s: no leader after %d rounds of its own vote; votes again when still stranded",
                    local_addr, STRANDED_ROUNDS);
            return true;
        }
        roundsLeft--;
        return false;
    }

    /** A vote response counts only in the term it answers, not in a later round of the same voter. */
    @Override
    protected void handleMessage(Message msg, RaftHeader hdr) {
        if (hdr instanceof VoteResponse && hdr.currTerm() != raft.currentTerm()) {
            log.trace(
                    "%s: dropping a vote response of %s for term %d (current term %d)",
                    local_addr, msg.getSrc(), hdr.currTerm(), raft.currentTerm());
            return;
        }
        super.handleMessage(msg, hdr);
    }

    @Override
    public Object up(Message msg) {
        noticeALowerTermLeaderSafely(msg);
        return super.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        for (Message msg : batch) {
            noticeALowerTermLeaderSafely(msg);
        }
        super.up(batch);
    }

    private void noticeALowerTermLeaderSafely(Message msg) {
        try {
            noticeALowerTermLeader(msg);
        } catch (RuntimeException e) {
            log.warn("%s: could not check for a lower-term leader: %s", local_addr, e);
        }
    }

    private void noticeALowerTermLeader(Message msg) {
        RAFT consensus = raft;
        if (consensus == null || stopped) {
            return;
        }
        if (consensus.leader() != null) {
            if (strandedVotes.get() != 0) {
                strandedVotes.set(0);
            }
            return;
        }
        RaftHeader header = msg.getHeader(consensus.getId());
        if (!(header instanceof AppendEntriesRequest)) {
            header = msg.getHeader(getId());
            if (!(header instanceof LeaderElected)) {
                return;
            }
        }
        long leaderTerm = header.currTerm();
        if (leaderTerm > 0 && leaderTerm < consensus.currentTerm() && strandedCheckPending.compareAndSet(false, true)) {
            Address leader = msg.getSrc();
            try {
                strandedCheck = getTransport()
                        .getTimer()
                        .schedule(
                                () -> voteIfStillStranded(leader, leaderTerm),
                                strandedDelayMillis(strandedVotes.get()),
                                TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) { // the timer stopped: the channel closes
                strandedCheckPending.set(false);
                log.debug("%s: no stranded check scheduled: %s", local_addr, e);
            }
        }
    }

    /** {@link #STRANDED_MILLIS}, doubled for each stranded vote since a leader was last known, at most 30 s. */
    static long strandedDelayMillis(int votesSinceALeader) {
        return Math.min(MAX_STRANDED_MILLIS, STRANDED_MILLIS << Math.min(votesSinceALeader, 4));
    }

    private void voteIfStillStranded(Address leader, long leaderTerm) {
        strandedCheckPending.set(false);
        RAFT consensus = raft;
        if (consensus == null || stopped || consensus.leader() != null || view == null || !isMajorityAvailable()) {
            return;
        }
        long term = consensus.currentTerm();
        if (startStrandedVote()) {
            strandedVotes.incrementAndGet();
            log.info(
                    "%s: no leader known while %s, leader in term %d, speaks below this member's term %d: "
                            + "holding a vote in a term above both (at most %d rounds)",
                    local_addr, leader, leaderTerm, term, STRANDED_ROUNDS);
        }
    }
}
