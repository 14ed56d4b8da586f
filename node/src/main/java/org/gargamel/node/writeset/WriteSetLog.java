package org.gargamel.node.writeset;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.LogUnavailableException;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.jgroups.JChannel;
import org.jgroups.raft.StateMachine;

/**
 * This node's end of the write-set log (DESIGN.md §6): a Raft group of the nodes ({@link RaftLog}). An entry (a
 * write-set, an ABANDON decision, a catch-up mark) is committed once a majority of the replicas hold it, and every
 * replica applies the committed entries in one order through its {@link LogStateMachine}, so a transaction acknowledged
 * once its entry is committed survives the death of any minority of the nodes. An append may be sent twice (its leader
 * died); the apply loop ignores the second copy. An append that cannot be committed in time is a
 * {@link LogUnavailableException} (no majority: a serving node stops, and rejoins from its log when restarted).
 */
public final class WriteSetLog implements LogAppender, AutoCloseable {
    private final RaftLog log;
    private final String cluster;
    /** Stamps each write-set appended from here, so a copy sent again is recognised (AppendSequence). */
    private final AppendSequence appends = new AppendSequence();

    public WriteSetLog(String node, JChannel channel, StateMachine stateMachine) {
        this(node, channel, stateMachine, RaftLog.Patience.DEFAULT);
    }

    public WriteSetLog(String node, JChannel channel, StateMachine stateMachine, RaftLog.Patience patience) {
        this(node, Channels.WRITE_SET_CLUSTER, channel, stateMachine, patience);
    }

    /** {@code cluster}: the log's group ({@code gargamel-writesets}, or a site's own with a log per site). */
    public WriteSetLog(
            String node, String cluster, JChannel channel, StateMachine stateMachine, RaftLog.Patience patience) {
        this.log = new RaftLog(node, "write-set log", channel, stateMachine, patience);
        this.cluster = cluster;
    }

    /** Joins the group; the log's committed entries already held here are applied (replayed) first. */
    public void connect() throws Exception {
        log.connect(cluster);
    }

    /** The index of the first entry the log holds (1 unless a snapshot truncated it). */
    public long firstIndex() {
        return log.firstIndex();
    }

    /** The log's members (its majority is of them): every replica, or the site's own with a log per site. */
    public java.util.List<String> members() {
        return log.members();
    }

    public boolean isLeader() {
        return log.isLeader();
    }

    /** The log's leader as this member knows it, or empty while it knows none ({@link RaftLog#leader}). */
    public Optional<String> leader() {
        return log.leader();
    }

    /** The latest entry this member knows to be committed ({@link RaftLog#commitIndex}). */
    public long commitIndex() {
        return log.commitIndex();
    }

    /**
     * Appends {@code message}; see {@link RaftLog#append}. A write-set is stamped first ({@link AppendSequence}): every
     * copy RaftLog sends again carries the same stamp.
     */
    @Override
    public CompletableFuture<Void> append(Message message, String what) {
        if (!(message instanceof WriteSet writeSet)) {
            return log.append(WireCodec.encode(message), what);
        }
        WriteSet.Append stamp = appends.open();
        CompletableFuture<Void> committed = log.append(WireCodec.encode(writeSet.withAppend(stamp)), what);
        Futures.whenDone(committed, (done, failure) -> {
            if (failure == null) {
                appends.committed(stamp.sequence()); // a failed one stays open: its node stops
            }
        });
        return committed;
    }

    @Override
    public void close() {
        log.close();
    }
}
