package org.gargamel.node.execution;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Execute;
import org.gargamel.node.CpuClock;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.writeset.ReplicaState;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's dedicated PostgreSQL connection, with the two things a worker needs beyond JDBC.
 *
 * <p><b>Ending a transaction for sure.</b> {@link #endTransaction} rolls back until the session is idle. A query cancel
 * (round-robin sends them to make room for certified write-sets) can reach the server after the statement it was meant
 * for and cancel the next one instead, including the ROLLBACK: a ROLLBACK that fails leaves the transaction open and
 * aborted, and the worker's next call then fails with 25P02 ("current transaction is aborted"). So a cancelled
 * ROLLBACK is retried, and the session's state is checked.
 *
 * <p><b>A cancellation window</b> (round-robin). The apply loop may cancel the worker's statement only while the worker
 * is executing a call ({@link #openCancellationWindow} .. {@link #closeCancellationWindow}). Closing the window waits
 * for a cancel being sent to finish, and reports whether one was sent: the worker then treats its execution as
 * cancelled even if it completed, and rolls back, so a cancel never outlives the window into a commit.
 */
public final class WorkerConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerConnection.class);

    static final String QUERY_CANCELED = "57014";

    /**
     * pgjdbc properties of every connection of a node's pool. {@code binaryTransfer=false}: once a text has run five
     * times on a connection pgjdbc prepares it on the server and then asks for float8, numeric, timestamps, arrays and
     * bytea in binary, and {@code getString} gives Java's rendering of the decoded value (float8 100 as "100.0", bytea
     * as "[B@..."): a call's result, handed on as PostgreSQL's text (CallRunner.resultRows), would change its text
     * from its sixth run on a worker (CallAsRoleTest, aCallsResultKeepsPostgresqlsTextOnceItsTextIsPrepared).
     */
    public static final java.util.Map<String, String> DRIVER_PROPERTIES = java.util.Map.of("binaryTransfer", "false");
    /** currval() of a sequence this session never drew from. */
    private static final String SEQUENCE_NOT_DRAWN = "55000";
    /** More than one stray cancel per window cannot happen (one per window); a few retries cover it with margin. */
    private static final int ROLLBACK_ATTEMPTS = 5;

    private static final int CLOSED = 0;
    private static final int OPEN = 1;
    private static final int CANCELLING = 2;
    private static final int CANCELLED = 3;

    private final String name;
    private final Connection connection;
    /** The CPU its calls cost, here and in the backend (NodeStatistics). */
    private final CpuClock cpu;

    private final AtomicInteger window = new AtomicInteger(CLOSED);
    /** The last number this session drew from the replica's commit order, as far as this side knows (PSI). */
    private long lastCommitOrder = -1;

    /**
     * Dedicates {@code connection} to a worker: auto-commit mode, every transaction opened explicitly by a call's
     * pipeline. {@code name} names the worker in messages, e.g. {@code node-1 worker 2}.
     */
    public static WorkerConnection dedicate(String name, Connection connection) throws SQLException {
        CallRunner.prepareConnection(connection);
        return new WorkerConnection(name, connection, CpuClock.of(connection, name));
    }

    WorkerConnection(String name, Connection connection) {
        this(name, connection, CpuClock.threadOnly());
    }

    private WorkerConnection(String name, Connection connection, CpuClock cpu) {
        this.name = name;
        this.connection = connection;
        this.cpu = cpu;
    }

    public String name() {
        return name;
    }

    public Connection jdbc() {
        return connection;
    }

    public CpuClock cpu() {
        return cpu;
    }

    /**
     * Rolls back whatever transaction is open or aborted, until the session is idle; a no-op when none is open.
     * Throws if the connection is broken: the caller cannot know what happened to its transaction.
     */
    public void endTransaction() throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("ROLLBACK");
            } catch (SQLException e) {
                if (QUERY_CANCELED.equals(e.getSQLState()) && attempt < ROLLBACK_ATTEMPTS) {
                    continue; // a cancel meant for an earlier statement hit the ROLLBACK: the transaction is still open
                }
                throw e;
            }
            if (!idle()) {
                throw new SQLException("the session is still in a transaction after a successful ROLLBACK", "25000");
            }
            return;
        }
    }

    /**
     * {@link #endTransaction} for a call whose statement failed with {@code failure} (null: none failed): a connection
     * that cannot even roll back is broken, and the call's fate (committed or not) is unknown, so the node stops.
     */
    void endTransactionOrStop(Execute call, SQLException failure) {
        try {
            endTransaction();
            if (failure != null && WriteSetCapture.CAPTURE_DISARMED.equals(failure.getSQLState())) {
                // Something in the session turned capture off (the procedure itself: nothing else runs on this
                // connection). The call failed before its commit; the worker's next call must be captured again.
                LOG.error(
                        "{}: {}; transaction {} ({}) rolled back, capture armed again",
                        name,
                        failure.getMessage(),
                        call.txnId(),
                        call.call().procedure());
                try (Statement statement = connection.createStatement()) {
                    statement.execute(WriteSetCapture.ARM);
                }
            }
        } catch (SQLException e) {
            throw new FatalException(
                    name + ": the connection broke while running transaction " + call.txnId() + " ("
                            + call.call().procedure() + "), whose outcome is therefore unknown"
                            + (failure == null ? "" : ": " + failure.getMessage()) + "; ROLLBACK: " + e.getMessage(),
                    failure != null ? failure : e);
        }
    }

    /**
     * Draws a number from the commit order outside a call (PSI: for the empty write-set of a rolled-back call, so it
     * enters the log after everything this node committed before it, which a call depending on it may have read).
     */
    long drawCommitOrder() throws SQLException {
        try (Statement statement = connection.createStatement();
                java.sql.ResultSet rows = statement.executeQuery(ReplicaState.NEXT_COMMIT_ORDER)) {
            rows.next();
            lastCommitOrder = rows.getLong(1);
            return lastCommitOrder;
        }
    }

    /** A PSI pipeline that committed drew {@code number} from the commit order. */
    void drew(long number) {
        lastCommitOrder = number;
    }

    /**
     * After a failed PSI pipeline (and {@link #endTransaction}): the number it drew from the commit order before it
     * failed (at its COMMIT), or -1 if it failed before drawing. A drawn number must be skipped, or the write-sets
     * after it would wait for it forever. {@code currval} is the session's last draw, whatever became of its
     * transaction.
     */
    long numberDrawnByFailedPipeline() throws SQLException {
        try (Statement statement = connection.createStatement();
                java.sql.ResultSet rows = statement.executeQuery(ReplicaState.CURRENT_COMMIT_ORDER)) {
            rows.next();
            long current = rows.getLong(1);
            if (current == lastCommitOrder) {
                return -1;
            }
            lastCommitOrder = current;
            return current;
        } catch (SQLException e) {
            if (SEQUENCE_NOT_DRAWN.equals(e.getSQLState())) {
                return -1; // this session never drew: the pipeline failed before
            }
            throw e;
        }
    }

    /** Whether the server reported the session idle (outside any transaction) after the last statement. */
    boolean idle() throws SQLException {
        if (!connection.isWrapperFor(BaseConnection.class)) {
            return true; // not pgjdbc (unit tests): trust a successful ROLLBACK
        }
        return connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.IDLE;
    }

    /** The worker starts executing a call that the apply loop may cancel. */
    public void openCancellationWindow() {
        window.set(OPEN);
    }

    /**
     * The worker's execution ended (completed or failed): no cancel can be sent from now on. Waits while one is being
     * sent. Returns true if a cancel was sent during the window: the execution must count as cancelled.
     */
    public boolean closeCancellationWindow() {
        while (true) {
            int state = window.get();
            if (state == OPEN && window.compareAndSet(OPEN, CLOSED)) {
                return false;
            }
            if (state == CANCELLED && window.compareAndSet(CANCELLED, CLOSED)) {
                return true;
            }
            if (state == CLOSED) {
                return false;
            }
            Thread.onSpinWait(); // CANCELLING: the cancel request is on its way; it takes one short connection
        }
    }

    /**
     * The apply loop's side: cancels the worker's running statement if its window is open (at most once per window).
     * Never holds a lock while the cancel request goes to the server.
     */
    public void cancelIfExecuting() {
        if (!window.compareAndSet(OPEN, CANCELLING)) {
            return;
        }
        try {
            connection.unwrap(PGConnection.class).cancelQuery();
        } catch (SQLException ignored) {
            // The statement finished meanwhile, or the connection broke: the worker's own statement reports which.
        } finally {
            window.set(CANCELLED);
        }
    }

    @Override
    public void close() {
        cpu.close();
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing anyway; nothing is pending on a closed worker.
        }
    }
}
