package org.gargamel.node.writeset;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.gargamel.common.group.Channels;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.JChannel;
import org.jgroups.protocols.raft.RaftLeaderException;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;

/**
 * This node's end of the write-set log (DESIGN.md §6): a Raft group of the nodes (jgroups-raft). An entry (a
 * write-set, an ABANDON decision, a catch-up mark) is committed once a majority of the replicas hold it, and every
 * replica applies the committed entries in one order through its {@link LogStateMachine}: a uniform total order,
 * so a transaction acknowledged once its entry is committed survives the death of any minority of the nodes.
 *
 * <p>An append goes to the leader (REDIRECT). While there is no leader (an election), nothing was sent and the append
 * is tried again; once an append may have reached the leader its fate can only be learnt from the log, so it is never
 * re-sent: an append that fails or is not committed in time is a {@link FatalException} (the node stops, and rejoins
 * from its log when restarted).
 */
public final class WriteSetLog implements LogAppender, AutoCloseable {
    /** How long an append may wait for a leader to exist (elections take a few hundred milliseconds). */
    static final Duration LEADER_WAIT = Duration.ofSeconds(30);
    /** How long a sent append may take to be committed before the node gives up on the log. */
    static final Duration COMMIT_WAIT = Duration.ofSeconds(30);

    private final String node;
    private final JChannel channel;
    private final RaftHandle raft;

    public WriteSetLog(String node, JChannel channel, StateMachine stateMachine) {
        this.node = node;
        this.channel = channel;
        this.raft = new RaftHandle(channel, stateMachine);
    }

    /** Joins the group; the log's committed entries already held here are applied (replayed) first. */
    public void connect() throws Exception {
        channel.connect(Channels.WRITE_SET_CLUSTER);
    }

    /** The index of the first entry the log holds (1 unless a snapshot truncated it). */
    public long firstIndex() {
        return raft.log().firstAppended();
    }

    public boolean isLeader() {
        return raft.isLeader();
    }

    /**
     * Appends {@code message}; the future completes when the entry is committed (a majority holds it), or
     * exceptionally with a {@link FatalException} naming {@code what} if that cannot be known.
     */
    @Override
    public CompletableFuture<Void> append(Message message, String what) {
        byte[] entry = WireCodec.encode(message);
        long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
        while (true) {
            try {
                return raft.setAsync(entry, 0, entry.length)
                        .orTimeout(COMMIT_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                        .handle((response, failure) -> {
                            if (failure != null) {
                                throw new FatalException(
                                        node + ": the write-set log did not commit " + what
                                                + " (it may or may not be in the log): " + failure,
                                        failure);
                            }
                            return (Void) null;
                        });
            } catch (RaftLeaderException e) {
                if (System.nanoTime() > deadline) {
                    return CompletableFuture.failedFuture(new FatalException(
                            node + ": no leader of the write-set "
                                    + "log within " + LEADER_WAIT.toSeconds() + " s for " + what
                                    + " (is a majority of the "
                                    + "replicas up?): " + e.getMessage(),
                            e));
                }
                try {
                    Thread.sleep(20); // an election is under way; nothing was sent
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return CompletableFuture.failedFuture(interrupted);
                }
            } catch (Exception e) {
                return CompletableFuture.failedFuture(
                        new FatalException(node + ": cannot append " + what + " to the write-set log: " + e, e));
            }
        }
    }

    @Override
    public void close() {
        channel.close();
    }
}
