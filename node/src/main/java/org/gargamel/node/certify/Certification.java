package org.gargamel.node.certify;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.jdbc.Rollbacks;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.apply.WriteSetApplier;
import org.gargamel.node.writeset.OwnTransaction;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.ReplicaState;

/**
 * The round-robin baseline's state at one node (the thesis's §6.3.1): the {@link Certifier}, how many certified
 * winners this node has committed (a transaction's snapshot), and the room the apply loop makes for a certified
 * write-set whose rows local executions hold.
 *
 * <p>Making room: a certified winner must apply, but a local transaction may hold one of its rows. That transaction
 * will lose its own certification (the winner comes first in the total order), so the apply loop dooms it (if it
 * already broadcast) or cancels it (if still executing) to release its locks, and retries the apply. Executions wait
 * while room is being made ({@link #awaitRoom}), or a cancelled call could take the row again and again.
 */
public final class Certification {
    /** How long an apply waits for a row lock before it makes room. */
    private static final String LOCK_TIMEOUT = "100ms";

    private static final String LOCK_NOT_AVAILABLE = "55P03";

    private final Certifier certifier;
    private final OwnTransactions own;
    private final Runnable cancelExecutions;
    private final Object room = new Object();
    private volatile boolean makingRoom;
    /** Winners committed here so far. Written by the apply loop only, read by the workers. */
    private final AtomicLong committedWinners = new AtomicLong();

    /** {@code cancelExecutions}: cancels every local execution in progress (their windows, see WorkerConnection). */
    public Certification(PrimaryKeys keys, OwnTransactions own, Runnable cancelExecutions) {
        this.certifier = new Certifier(keys);
        this.own = own;
        this.cancelExecutions = cancelExecutions;
    }

    /** The snapshot of a transaction starting now: the number of winners committed here. */
    public long snapshot() {
        return committedWinners.get();
    }

    /** The rows a write-set touches (table and key), as certification compares them. */
    public Set<String> rows(List<WriteSet.RowChange> changes) {
        return certifier.rows(changes);
    }

    /** Executions wait here while the apply loop makes room for a certified write-set. */
    public void awaitRoom() throws InterruptedException {
        synchronized (room) {
            while (makingRoom) {
                room.wait(50);
            }
        }
    }

    /**
     * The apply loop's side, in log order: certifies {@code writeSet}; an own transaction learns its fate (and is
     * committed or rolled back by its worker before this returns); a winner of another replica (or of an earlier
     * start of this one) is applied on {@code connection}, recording {@code bookkeeping} in the same transaction
     * (WriteSetApplier). Returns whether the write-set won.
     */
    public boolean deliver(
            WriteSet writeSet,
            boolean ownTransaction,
            WriteSetApplier applier,
            Connection connection,
            ReplicaState.Bookkeeping bookkeeping)
            throws SQLException, InterruptedException {
        boolean numbered = certifier.numbered(writeSet);
        boolean won = certifier.certify(writeSet);
        if (ownTransaction) {
            own.deliver(writeSet.txnId(), won ? OwnTransaction.Decision.COMMIT : OwnTransaction.Decision.LOSE);
        } else if (won && !writeSet.changes().isEmpty()) {
            applyMakingRoom(writeSet, applier, connection, bookkeeping);
        }
        if (won && numbered) {
            committedWinners.incrementAndGet();
        }
        return won;
    }

    /**
     * A write-set already reflected here, met again while the log is replayed after a restart: certified like any
     * other (the certifier's memory is rebuilt from the log), applied nowhere. Returns whether it won.
     */
    public boolean replay(WriteSet writeSet) {
        boolean numbered = certifier.numbered(writeSet);
        boolean won = certifier.certify(writeSet);
        if (won && numbered) {
            committedWinners.incrementAndGet();
        }
        return won;
    }

    private void applyMakingRoom(
            WriteSet writeSet, WriteSetApplier applier, Connection connection, ReplicaState.Bookkeeping bookkeeping)
            throws SQLException, InterruptedException {
        Set<String> rows = certifier.rows(writeSet.changes());
        try {
            while (true) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT + "'");
                    applier.apply(writeSet.changes(), bookkeeping);
                    connection.commit();
                    return;
                } catch (SQLException e) {
                    Rollbacks.after(connection, e);
                    if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                        throw e;
                    }
                    makingRoom = true;
                    own.doomHoldersOf(rows);
                    cancelExecutions.run();
                    Thread.sleep(5); // let the cancelled and doomed transactions roll back
                }
            }
        } finally {
            synchronized (room) {
                makingRoom = false;
                room.notifyAll();
            }
        }
    }
}
