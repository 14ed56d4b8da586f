package org.gargamel.common.group;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.raft.AppendEntriesRequest;
import org.jgroups.protocols.raft.ELECTION;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.RaftHeader;
import org.jgroups.protocols.raft.election.LeaderElected;
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
 * against the leader's 2 after two minutes). Here stop drops the view first (no majority: the thread ends at its next
 * round) and waits for the thread to end.</li>
 * <li>A member whose term is above the leader's (one round of an unfinished vote is enough) drops every message of
 * that leader, answering none, and ELECTION votes only when the view changes at its coordinator: such a member never
 * learns the leader. A member that hears a leader of a lower term ({@link LeaderElected}, AppendEntries) while it knows
 * none, and still knows none {@link #STRANDED_MILLIS} later with a majority in its view, holds a vote itself: in a
 * term above its own, which the others take (a higher term), and which elects the member with the most up-to-date log,
 * as every vote of ELECTION does.</li>
 * </ol>
 * Guarded by {@code RejoinElectionTest}.
 */
public final class RejoinElection extends ELECTION {
    /** How long a member hears only a leader of a lower term before it holds a vote (elections take milliseconds). */
    static final long STRANDED_MILLIS = 2000;

    private final AtomicBoolean strandedCheckPending = new AtomicBoolean();

    public RejoinElection() {
        // ELECTION's id: the headers this protocol sends and reads are ELECTION's, for every member alike.
        setId(ClassConfigurator.getProtocolId(ELECTION.class));
    }

    @Override
    public Object up(Message msg) {
        noticeALowerTermLeader(msg);
        return super.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        for (Message msg : batch) {
            noticeALowerTermLeader(msg);
        }
        super.up(batch);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the check only logs and starts the voting thread
    private void noticeALowerTermLeader(Message msg) {
        RAFT consensus = raft;
        if (consensus == null || consensus.leader() != null) {
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
            getTransport()
                    .getTimer()
                    .schedule(
                            () -> voteIfStillStranded(msg.getSrc(), leaderTerm),
                            STRANDED_MILLIS,
                            TimeUnit.MILLISECONDS);
        }
    }

    private void voteIfStillStranded(Object leader, long leaderTerm) {
        strandedCheckPending.set(false);
        RAFT consensus = raft;
        if (consensus == null
                || consensus.leader() != null
                || view == null
                || !isMajorityAvailable()
                || !consensus.members().contains(consensus.raftId())) {
            return;
        }
        log.info(
                "%s: no leader known for %d ms while %s, leader in term %d, speaks below this member's term %d: "
                        + "holding a vote in a term above both",
                local_addr, STRANDED_MILLIS, leader, leaderTerm, consensus.currentTerm());
        startVotingThread();
    }

    @Override
    public void stop() {
        // With no view there is no majority: a running voting thread ends at its next round, creating no term.
        view = null;
        super.stop();
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
}
