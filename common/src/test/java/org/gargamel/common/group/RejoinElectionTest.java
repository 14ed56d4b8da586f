package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInput;
import java.io.DataOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.testing.Await;
import org.jgroups.Address;
import org.jgroups.EmptyMessage;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.RaftHeader;
import org.jgroups.protocols.raft.election.BaseElection;
import org.jgroups.protocols.raft.election.LeaderElected;
import org.jgroups.protocols.raft.election.VoteResponse;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.ResponseCollector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of a Raft log closed and opened again in one process (a node rebuilt from a peer), as {@code chaos --kinds
 * partition --fault-seed 3} found it: closed while it voted as coordinator of a view with no leader, it must stop
 * voting, and, back with a term above the leader's, it must learn the leader within seconds ({@link RejoinElection}).
 * Member a votes in a view with a majority whose other member does not answer, as the rebuilt node had voted in the
 * merged view after the heal (the others had voted in that term already), before it was closed. And what a closed
 * election must not do (start a vote late, take a view), the bound on a stranded member's vote, and the term check of
 * vote responses.
 */
@Tag("cluster")
class RejoinElectionTest {
    private static final List<String> MEMBERS = List.of("a", "b", "c");

    @TempDir
    Path logs;

    private final List<JChannel> channels = new ArrayList<>();

    private static final class Ignore implements StateMachine {
        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            return null;
        }

        @Override
        public void readContentFrom(DataInput in) {}

        @Override
        public void writeContentTo(DataOutput out) {}
    }

    @AfterEach
    void closeAll() {
        channels.forEach(JChannel::close);
    }

    private RaftHandle member(String name, Path logDirectory, String cluster) throws Exception {
        return member(new RaftSettings(name, MEMBERS, logDirectory, false), cluster);
    }

    private RaftHandle member(RaftSettings settings, String cluster) throws Exception {
        JChannel channel = Channels.writeSetLog(GroupConfig.inMemory(), settings.raftId(), settings);
        channels.add(channel);
        RaftHandle handle = new RaftHandle(channel, new Ignore());
        channel.connect(cluster);
        return handle;
    }

    /**
     * Member a, coordinator of a view with a majority (a and b) and no leader, voting in vain: b, its term far above,
     * drops a's vote requests, so each round ends at the vote timeout and a tries again in a new term. Returns a's
     * channel once a's term is above {@code aboveTerm}.
     */
    private JChannel votingInVain(long aboveTerm) throws Exception {
        RaftHandle deaf = member("b", logs, "prepare-" + UUID.randomUUID());
        deaf.raft().currentTerm(1000);
        deaf.channel().close();
        String cluster = "alone-" + UUID.randomUUID();
        RaftHandle a = member("a", logs, cluster);
        member("b", logs, cluster);
        Await.until(
                "a votes, each round in a new term, beyond term " + aboveTerm,
                Duration.ofSeconds(10),
                () -> a.currentTerm() > aboveTerm,
                a::currentTerm);
        return a.channel();
    }

    /** Sends {@code header} of the election protocol to {@code channel}'s election as if {@code from} had. */
    private static void deliver(JChannel channel, Address from, RaftHeader header) {
        BaseElection election = election(channel);
        election.up(new EmptyMessage(channel.getAddress()).setSrc(from).putHeader(election.getId(), header));
    }

    private static BaseElection election(JChannel channel) {
        return channel.getProtocolStack().findProtocol(BaseElection.class);
    }

    @Test
    void aMemberClosedWhileItVotesStopsVotingSoTakesNoMoreTerms() throws Exception {
        JChannel a = votingInVain(3);
        assertTrue(election(a).isVotingThreadRunning());

        a.close();

        // ELECTION's own stop left the thread voting for ever with the closed channel's view (a majority, no leader),
        // a new term each round, written to the log files the member's next incarnation opens.
        assertFalse(election(a).isVotingThreadRunning(), "a's voting thread outlived its channel");
    }

    @Test
    void aMemberBackWithATermAboveTheLeadersLearnsTheLeaderWithinSeconds() throws Exception {
        String cluster = "log-" + UUID.randomUUID();
        RaftHandle b = member("b", null, cluster);
        RaftHandle c = member("c", null, cluster);
        Await.until("b and c elect a leader", Duration.ofSeconds(10), () -> b.leader() != null && c.leader() != null);
        long leaderTerm = b.currentTerm();

        JChannel closed = votingInVain(leaderTerm + 2);
        closed.close();

        RaftHandle a = member("a", logs, cluster);
        assertTrue(
                a.currentTerm() > leaderTerm,
                "a's log holds a term (" + a.currentTerm() + ") above the leader's (" + leaderTerm + ")");
        // The voter knows the leader it elected before the others hear of it: await the same leader at a and b.
        Await.until(
                "a learns the leader",
                Duration.ofSeconds(10),
                () -> a.leader() != null && a.leader().equals(b.leader()),
                () -> "a: leader " + a.leader() + " in term " + a.currentTerm() + ", b: leader " + b.leader()
                        + " in term " + b.currentTerm());
        // And the log takes an entry through a again.
        a.setAsync(new byte[] {1}, 0, 1).get(10, TimeUnit.SECONDS);
    }

    /** Records, when the stack stops it (top-down: just before RAFT, below it, closes the log), whether a vote ran. */
    private static final class VotingWhenTheLogCloses extends Protocol {
        private final BaseElection election;
        volatile Boolean voting;

        VotingWhenTheLogCloses(BaseElection election) {
            this.election = election;
        }

        @Override
        public void stop() {
            voting = election.isVotingThreadRunning();
            super.stop();
        }
    }

    @Test
    void aMemberClosedWhileItVotesEndsTheVoteBeforeItsLogCloses() throws Exception {
        JChannel a = votingInVain(3);
        VotingWhenTheLogCloses probe = new VotingWhenTheLogCloses(election(a));
        a.getProtocolStack().insertProtocol(probe, ProtocolStack.Position.ABOVE, RAFT.class);

        a.close();

        // The DISCONNECT passes the election before the stack stops: the vote ends before RAFT closes the log, so
        // no round writes a term into a closed log. Without it the election's own stop, after RAFT's, ended it.
        assertEquals(false, probe.voting, "a still voted when its log closed");
    }

    @Test
    void aVoteAskedForAfterCloseStartsNoThread() throws Exception {
        RaftHandle a = member("a", null, "alone-" + UUID.randomUUID());
        a.channel().close();

        // As a stranded check that passed its checks just before the close: the thread would vote with no view, an
        // exception (and a new term) each pass, for the life of the process.
        election(a.channel()).startVotingThread();

        assertFalse(election(a.channel()).isVotingThreadRunning(), "a vote started on a closed channel");
    }

    @Test
    void aViewAfterCloseStartsNoVote() throws Exception {
        String cluster = "late-view-" + UUID.randomUUID();
        RaftHandle a = member("a", null, cluster);
        member("b", null, cluster);
        Await.until("a and b elect a leader", Duration.ofSeconds(10), () -> a.leader() != null);
        View withAMajority = a.channel().getView();
        a.channel().close();

        // A merge view in flight when the channel closed: a coordinator of a view with a majority, after no view.
        election(a.channel()).up(new Event(Event.VIEW_CHANGE, withAMajority));

        assertFalse(election(a.channel()).isVotingThreadRunning(), "a late view started a vote on a closed channel");
    }

    @Test
    void aVoteResponseCountsOnlyInTheTermItAnswers() throws Exception {
        String cluster = "log-" + UUID.randomUUID();
        RaftHandle b = member("b", null, cluster);
        RaftHandle c = member("c", null, cluster);
        Await.until("b and c elect a leader", Duration.ofSeconds(10), () -> b.leader() != null && c.leader() != null);
        long term = b.currentTerm();
        ResponseCollector<VoteResponse> votes = election(b.channel()).getVotes();
        votes.reset(List.of(c.channel().getAddress()));

        deliver(b.channel(), c.channel().getAddress(), new VoteResponse(term - 1, 0, 0));
        assertEquals(0, votes.numberOfValidResponses(), "a response of an earlier round counted");

        deliver(b.channel(), c.channel().getAddress(), new VoteResponse(term, 0, 0));
        assertEquals(1, votes.numberOfValidResponses(), "the response of the current round did not count");
    }

    /**
     * Member a hears a leader of a lower term, but its own vote cannot succeed: b, the only other member in its view,
     * has a term far above and drops a's requests (and b, of another membership, sees no majority, so holds no vote).
     */
    @Test
    void aStrandedMemberWhoseVoteFailsStopsAfterAFewRounds() throws Exception {
        String cluster = "partial-" + UUID.randomUUID();
        RaftHandle b = member(new RaftSettings("b", List.of("b", "p", "q", "r", "s"), null, false), cluster);
        b.raft().currentTerm(1000);
        RaftHandle a = member("a", null, cluster);
        long term = 5;
        a.raft().currentTerm(term);

        deliver(
                a.channel(),
                b.channel().getAddress(),
                new LeaderElected(b.channel().getAddress()).currTerm(1));

        Await.until("a holds a vote", Duration.ofSeconds(10), () -> a.currentTerm() > term, a::currentTerm);
        // ELECTION's voting thread, once started, votes until a leader is known: a new term every round, for good.
        Await.until(
                "a gives up its vote",
                Duration.ofSeconds(10),
                () -> !election(a.channel()).isVotingThreadRunning(),
                a::currentTerm);
        assertEquals(term + RejoinElection.STRANDED_ROUNDS, a.currentTerm(), "a term per round");
        assertEquals(null, a.leader());
    }

    @Test
    void aStrandedMemberWaitsLongerBeforeEachNextVote() {
        assertEquals(2000, RejoinElection.strandedDelayMillis(0));
        assertEquals(4000, RejoinElection.strandedDelayMillis(1));
        assertEquals(16_000, RejoinElection.strandedDelayMillis(3));
        assertEquals(30_000, RejoinElection.strandedDelayMillis(4));
        assertEquals(30_000, RejoinElection.strandedDelayMillis(40));
    }

    /** As a node's learner of another site's log, file-based and reopened as well. */
    @Test
    void aLearnerBackWithATermAboveTheLeadersLearnsTheLeaderWithinSeconds() throws Exception {
        String cluster = "log-" + UUID.randomUUID();
        RaftHandle b = member("b", null, cluster);
        RaftHandle c = member("c", null, cluster);
        Await.until("b and c elect a leader", Duration.ofSeconds(10), () -> b.leader() != null && c.leader() != null);
        RaftSettings learner = new RaftSettings("l", MEMBERS, logs, false, true);
        RaftHandle before = member(learner, "prepare-" + UUID.randomUUID());
        before.raft().currentTerm(b.currentTerm() + 10);
        before.channel().close();

        RaftHandle l = member(learner, cluster);

        assertTrue(l.currentTerm() > b.currentTerm(), "l's log holds a term above the leader's");
        Await.until(
                "l learns the leader",
                Duration.ofSeconds(10),
                () -> l.leader() != null && l.leader().equals(b.leader()),
                () -> "l: leader " + l.leader() + " in term " + l.currentTerm() + ", b: leader " + b.leader()
                        + " in term " + b.currentTerm());
    }
}
