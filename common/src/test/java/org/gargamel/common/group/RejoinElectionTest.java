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
import org.jgroups.JChannel;
import org.jgroups.protocols.raft.election.BaseElection;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of a Raft log closed and opened again in one process (a node rebuilt from a peer), as {@code chaos --kinds
 * partition --fault-seed 3} found it: closed while it voted as coordinator of a view with no leader, it must stop
 * voting, and, back with a term above the leader's, it must learn the leader within seconds ({@link RejoinElection}).
 * Member a votes in a view with a majority whose other member does not answer, as the rebuilt node had voted in the
 * merged view after the heal (the others had voted in that term already), before it was closed.
 */
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
        JChannel channel = Channels.writeSetLog(
                GroupConfig.inMemory(), name, new RaftSettings(name, MEMBERS, logDirectory, false));
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
        Await.until(
                "a learns the leader",
                Duration.ofSeconds(10),
                () -> a.leader() != null,
                () -> "a: term " + a.currentTerm() + ", b: leader " + b.leader() + " in term " + b.currentTerm());
        assertEquals(b.leader(), a.leader());
        // And the log takes an entry through a again.
        a.setAsync(new byte[] {1}, 0, 1).get(10, TimeUnit.SECONDS);
    }
}
