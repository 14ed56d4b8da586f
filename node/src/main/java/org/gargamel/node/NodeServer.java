package org.gargamel.node;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.config.Mode;
import org.gargamel.common.config.Secrets;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.validate.LiveValidator;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.Channels;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.MalformedMessageException;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.apply.WriteSetApplier;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.postgresql.PGConnection;

/**
 * A node (DESIGN.md §5): owns one PostgreSQL replica. Each of its K workers runs the calls the scheduler placed on
 * it, in order, each once its back-dependencies are visible here; it captures what the call changed and hands the
 * write-set to the total-order broadcast. One applier applies the other replicas' write-sets in delivery order.
 *
 * <p>Isolation (docs/node.md): in PSI mode a call runs at READ COMMITTED and commits before its write-set is
 * broadcast; calls that may conflict never run at the same time anywhere (the scheduler chains them), and a
 * column-disjoint concurrent writer of the same row only makes a statement wait for the row lock and then see the
 * newest version, never fail. In SI mode (row-granular conflicts) a call runs at REPEATABLE READ and commits when its
 * own write-set is delivered, so every replica commits update transactions in the total order. In round-robin mode
 * calls run concurrently at REPEATABLE READ and are certified at delivery; losers are re-executed.
 */
public final class NodeServer implements AutoCloseable {
    /** Printed once the node has joined both groups; the demo waits for it. */
    public static final String READY = "gargamel node ready";
    private static final int MAX_LOCAL_RETRIES = 100;
    private static final int PROGRESS_BATCH = 4096;

    private final NodeConfig config;
    private final String name;
    private final Mode mode;
    private final boolean si;
    private final NodeStatistics statistics;
    private final Visibility visibility = new Visibility();
    private final ConcurrentLinkedQueue<Long> progress = new ConcurrentLinkedQueue<>();
    /** What the write-set group delivered, in total order: write-sets and {@link Abandon} decisions. */
    private final LinkedBlockingQueue<Message> delivered = new LinkedBlockingQueue<>();
    /**
     * Transactions settled as done with no effect ({@link Abandon}) before their write-set was delivered; a write-set
     * of theirs delivered later is discarded, in the same place of the total order at every node. Applier only.
     */
    private final Set<Long> abandoned = new HashSet<>();
    private final Map<Long, OwnTransaction> own = new ConcurrentHashMap<>();
    private final List<Worker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private HikariDataSource dataSource;
    private PrimaryKeys primaryKeys;
    private Certifier certifier;
    private JChannel control;
    private JChannel writeSets;
    private volatile Address scheduler;
    private volatile boolean running;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** Round-robin: winners committed here so far (a transaction's snapshot). Written by the applier only. */
    private volatile long certifiedCommitted;
    /**
     * Round-robin: set while the applier makes room for a certified write-set (it cancelled local executions that
     * held its rows). Executions wait for it to clear before they start again, or a cancelled call could re-take a
     * row the applier needs and block it again and again.
     */
    private volatile boolean makingRoom;
    private final Object room = new Object();
    /** Completed when the node cannot go on (a write-set that does not apply); the process then exits. */
    private final CompletableFuture<Throwable> fatal = new CompletableFuture<>();

    public NodeServer(NodeConfig config) {
        this.config = config.validate();
        this.name = config.name();
        this.mode = config.mode();
        this.si = config.si();
        this.statistics = new NodeStatistics(name);
    }

    public String name() {
        return name;
    }

    public NodeStatistics statistics() {
        return statistics;
    }

    /** Completes with the reason if the node fails and must stop (its replica would otherwise diverge). */
    public CompletableFuture<Throwable> failure() {
        return fatal;
    }

    /**
     * Validates the rules against the database, installs write-set capture, opens the workers' connections and
     * joins both groups. Fails with a message naming the problem, and leaves nothing running, if any step fails.
     */
    public void start() throws Exception {
        ClassifierRules rules = config.loadRules();
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(config.jdbcUrl());
        if (config.user() != null) {
            pool.setUsername(config.user());
        }
        if (config.password() != null) {
            pool.setPassword(config.password());
        }
        pool.setPoolName(name);
        pool.setMaximumPoolSize(config.workers() + 2);
        pool.setMinimumIdle(0);
        pool.setAutoCommit(false);
        pool.setConnectionTimeout(10_000);
        try {
            dataSource = new HikariDataSource(pool);
            try (Connection connection = dataSource.getConnection()) {
                new LiveValidator().validate(rules, connection);
                connection.commit();
                WriteSetCapture.install(connection, "public");
                connection.commit();
                primaryKeys = PrimaryKeys.read(connection, "public");
            }
            certifier = new Certifier(primaryKeys);
            running = true;
            for (int i = 0; i < config.workers(); i++) {
                Connection connection = dataSource.getConnection();
                WriteSetCapture.enableForSession(connection);
                CallRunner.prepare(connection);
                Worker worker = new Worker(i, connection);
                workers.add(worker);
                startThread(worker::run, name + "-worker-" + i);
            }
            Connection applierConnection = dataSource.getConnection();
            WriteSetApplier applier = new WriteSetApplier(applierConnection);
            startThread(() -> runApplier(applierConnection, applier), name + "-applier");
            startThread(this::runProgress, name + "-progress");
            writeSets = Channels.writeSets(config.writeSets().toGroupConfig("writeSets"), name);
            writeSets.setReceiver(new WriteSetListener());
            writeSets.connect(Channels.WRITE_SET_CLUSTER);
            control = Channels.control(config.control().toGroupConfig("control"), name);
            control.setReceiver(new ControlListener());
            control.connect(Channels.CONTROL_CLUSTER);
            announce(control.getView());
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    public String describe() {
        return name + " (" + config.workers() + " workers, mode " + config.mode() + ", isolation " + config.isolation()
                + ") on " + Secrets.maskUrl(config.jdbcUrl());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;  // idempotent: the statistics are written once
        }
        running = false;
        if (control != null) {
            control.close();
        }
        if (writeSets != null) {
            writeSets.close();
        }
        visibility.wakeAll();
        for (Thread thread : threads) {
            thread.interrupt();
        }
        for (Thread thread : threads) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Worker worker : workers) {
            closeQuietly(worker.connection);
        }
        if (dataSource != null) {
            dataSource.close();
        }
        if (config.statsFile() != null) {
            try {
                statistics.write(Path.of(config.statsFile()));
            } catch (java.io.IOException e) {
                System.err.println("gargamel node " + name + ": cannot write " + config.statsFile() + ": " + e.getMessage());
            }
        }
    }

    private void startThread(Runnable body, String threadName) {
        Thread thread = new Thread(body, threadName);
        threads.add(thread);
        thread.start();
    }

    // ---- workers ----

    /** One connection and a FIFO queue: runs the calls placed on it one after another. */
    private final class Worker {
        final int index;
        final Connection connection;
        final LinkedBlockingQueue<Execute> queue = new LinkedBlockingQueue<>();
        /** Round-robin: set while a call executes and has not broadcast yet, so the applier may cancel it. */
        volatile boolean cancellable;

        Worker(int index, Connection connection) {
            this.index = index;
            this.connection = connection;
        }

        void run() {
            while (running) {
                Execute call;
                try {
                    call = queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    visibility.awaitAll(call.backDependencies());
                    if (call.readOnly()) {
                        executeReadOnly(call);
                    } else if (mode == Mode.ROUND_ROBIN) {
                        executeCertified(call);
                    } else {
                        executeScheduled(call);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    if (running) {
                        System.err.println("gargamel node " + name + ": worker " + index + " failed on transaction "
                                + call.txnId() + ": " + e);
                        e.printStackTrace(System.err);
                    }
                }
            }
        }

        void executeReadOnly(Execute call) {
            long start = System.nanoTime();
            try {
                String result = CallRunner.runReadOnly(connection, call.call(),
                        si ? CallRunner.Isolation.REPEATABLE_READ : CallRunner.Isolation.READ_COMMITTED);
                statistics.readOnly(call.call().procedure(), System.nanoTime() - start);
                reply(call, CallOutcome.committed(call.callId(), call.txnId(), result));
            } catch (SQLException e) {
                CallRunner.rollback(connection);  // a failed SI read-only call leaves its transaction block open
                reply(call, CallOutcome.userAborted(call.callId(), call.txnId(), e.getSQLState(), e.getMessage()));
            }
            visibility.markVisible(call.txnId());
            progress.add(call.txnId());
        }

        /** Gargamel and centralized modes: the scheduler ordered every conflicting call before this one. */
        void executeScheduled(Execute call) throws InterruptedException {
            long start = System.nanoTime();
            String procedure = call.call().procedure();
            for (int attempt = 0; ; attempt++) {
                try {
                    // PSI: run, read the changes and commit in one round trip; SI: commit in the total order.
                    CallRunner.Ran ran = CallRunner.run(connection, call.call(),
                            si ? CallRunner.Isolation.REPEATABLE_READ : CallRunner.Isolation.READ_COMMITTED, !si);
                    WriteSet writeSet = new WriteSet(call.txnId(), name, procedure, call.backDependencies(), -1,
                            ran.changes());
                    if (si) {
                        commitInTotalOrder(writeSet);
                    } else {
                        broadcast(writeSet);
                    }
                    statistics.executed(procedure, true, System.nanoTime() - start);
                    finish(call, CallOutcome.committed(call.callId(), call.txnId(), ran.result()));
                    return;
                } catch (SQLException e) {
                    CallRunner.rollback(connection);
                    if (SqlErrorKind.classify(e) == SqlErrorKind.RETRYABLE && attempt < MAX_LOCAL_RETRIES) {
                        // Not expected with a sound classifier; counted, never hidden.
                        statistics.retry();
                        continue;
                    }
                    abortScheduled(call, e, start);
                    return;
                }
            }
        }

        /** A procedure error: rolled back, an empty write-set still tells every replica that it is done. */
        private void abortScheduled(Execute call, SQLException error, long start) throws InterruptedException {
            WriteSet empty = new WriteSet(call.txnId(), name, call.call().procedure(), call.backDependencies(), -1, List.of());
            try {
                if (si) {
                    commitInTotalOrder(empty);
                } else {
                    broadcast(empty);
                }
            } catch (SQLException e) {
                CallRunner.rollback(connection);
            }
            statistics.executed(call.call().procedure(), false, System.nanoTime() - start);
            finish(call, CallOutcome.userAborted(call.callId(), call.txnId(), error.getSQLState(), error.getMessage()));
        }

        /** SI: broadcast first, commit when our own write-set is delivered, in the total order. */
        private void commitInTotalOrder(WriteSet writeSet) throws SQLException, InterruptedException {
            OwnTransaction transaction = new OwnTransaction();
            own.put(writeSet.txnId(), transaction);
            try {
                broadcast(writeSet);
                transaction.awaitDecision();
                CallRunner.commit(connection);
            } finally {
                transaction.finished.countDown();
            }
        }

        /** Round-robin: execute concurrently, broadcast with the snapshot, commit or re-execute on the decision. */
        void executeCertified(Execute call) throws InterruptedException {
            long start = System.nanoTime();
            String procedure = call.call().procedure();
            while (running) {
                awaitRoom();
                long snapshot = certifiedCommitted;
                OwnTransaction transaction = null;
                try {
                    cancellable = true;
                    String result;
                    List<WriteSet.RowChange> changes;
                    try {
                        CallRunner.Ran ran = CallRunner.run(connection, call.call(), CallRunner.Isolation.REPEATABLE_READ,
                                false);
                        result = ran.result();
                        changes = ran.changes();
                    } finally {
                        cancellable = false;
                    }
                    WriteSet writeSet = new WriteSet(call.txnId(), name, procedure, new long[0], snapshot, changes);
                    transaction = new OwnTransaction();
                    transaction.rows = certifier.rows(changes);
                    own.put(call.txnId(), transaction);
                    broadcast(writeSet);
                    boolean won = transaction.awaitDecisionOrDoom(connection);
                    if (won) {
                        CallRunner.commit(connection);
                        transaction.finished.countDown();
                        statistics.executed(procedure, true, System.nanoTime() - start);
                        finish(call, CallOutcome.committed(call.callId(), call.txnId(), result));
                        return;
                    }
                    CallRunner.rollback(connection);
                    transaction.finished.countDown();
                    statistics.conflictAbort();
                    statistics.retry();
                } catch (SQLException e) {
                    CallRunner.rollback(connection);
                    if (transaction != null) {
                        transaction.finished.countDown();
                    }
                    SqlErrorKind kind = SqlErrorKind.classify(e);
                    if (kind == SqlErrorKind.RETRYABLE || "57014".equals(e.getSQLState())) {
                        // Serialization failure, deadlock, or cancelled to let a certified write-set through.
                        statistics.conflictAbort();
                        statistics.retry();
                        continue;
                    }
                    WriteSet empty = new WriteSet(call.txnId(), name, procedure, new long[0], snapshot, List.of());
                    broadcast(empty);
                    statistics.executed(procedure, false, System.nanoTime() - start);
                    finish(call, CallOutcome.userAborted(call.callId(), call.txnId(), e.getSQLState(), e.getMessage()));
                    return;
                }
            }
        }

        private void finish(Execute call, CallOutcome outcome) {
            visibility.markVisible(call.txnId());
            reply(call, outcome);
            progress.add(call.txnId());
        }
    }

    private void awaitRoom() throws InterruptedException {
        synchronized (room) {
            while (makingRoom && running) {
                room.wait(50);
            }
        }
    }

    /** A local update transaction waiting for its own write-set's delivery (SI, round-robin). */
    private static final class OwnTransaction {
        final CompletableFuture<Boolean> decision = new CompletableFuture<>();
        final CountDownLatch finished = new CountDownLatch(1);
        volatile boolean doomed;
        volatile Set<String> rows = Set.of();

        void awaitDecision() throws InterruptedException {
            try {
                decision.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }

        /**
         * Waits for the certification decision; if the applier dooms this transaction first (a winner delivered
         * earlier needs its rows), rolls back at once to release the locks, then still waits for the decision.
         */
        boolean awaitDecisionOrDoom(Connection connection) throws InterruptedException {
            while (true) {
                try {
                    return decision.get(20, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    if (doomed) {
                        CallRunner.rollback(connection);
                        awaitDecision();
                        return false;
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
        }
    }

    // ---- applier ----

    private void runApplier(Connection connection, WriteSetApplier applier) {
        try {
            while (running) {
                Message next;
                try {
                    next = delivered.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (next instanceof Abandon abandon) {
                    settle(abandon);
                    continue;
                }
                WriteSet writeSet = (WriteSet) next;
                if (abandoned.remove(writeSet.txnId())) {
                    System.err.println("gargamel node " + name + ": discarded the write-set of transaction "
                            + writeSet.txnId() + " from " + writeSet.origin() + ", delivered after it was abandoned");
                    continue;
                }
                try {
                    if (mode == Mode.ROUND_ROBIN) {
                        certifyAndApply(writeSet, applier, connection);
                    } else {
                        applyScheduled(writeSet, applier, connection);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (SQLException | RuntimeException e) {
                    if (running) {
                        // A write-set that cannot be applied means this replica has diverged: stop loudly.
                        fatal.complete(new IllegalStateException(name + " cannot apply the write-set of transaction "
                                + writeSet.txnId() + " from " + writeSet.origin() + " (the replica would diverge): "
                                + e.getMessage(), e));
                    }
                    return;
                }
            }
        } finally {
            closeQuietly(connection);
        }
    }

    /**
     * A departed node's unreported transactions, in the total order: each one not yet visible here (its write-set not
     * delivered before this) is done with no effect, so its dependents may start; its write-set, if it ever comes, is
     * discarded. Every node decides alike, since all deliver the same sequence.
     */
    private void settle(Abandon abandon) {
        int settled = 0;
        for (long txn : abandon.transactions()) {
            if (!visibility.isVisible(txn)) {
                abandoned.add(txn);
                visibility.markVisible(txn);
                progress.add(txn);
                settled++;
            }
        }
        if (settled > 0) {  // copies of the decision (one per survivor) find nothing left to settle
            System.err.println("gargamel node " + name + ": " + abandon.origin() + " left; " + settled + " of its "
                    + abandon.transactions().length + " unreported transaction(s) settled as done with no effect");
        }
    }

    private void applyScheduled(WriteSet writeSet, WriteSetApplier applier, Connection connection)
            throws SQLException, InterruptedException {
        if (writeSet.origin().equals(name)) {
            OwnTransaction transaction = own.remove(writeSet.txnId());
            if (transaction != null) {
                // SI: the worker commits now; the next write-set waits, so commits follow the total order.
                transaction.decision.complete(true);
                transaction.finished.await();
            }
            return;
        }
        visibility.awaitAll(writeSet.backDependencies());
        if (!writeSet.changes().isEmpty()) {
            long start = System.nanoTime();
            applier.apply(writeSet.changes());
            connection.commit();
            statistics.applied(writeSet.procedure(), System.nanoTime() - start);
        }
        visibility.markVisible(writeSet.txnId());
        progress.add(writeSet.txnId());
    }

    private void certifyAndApply(WriteSet writeSet, WriteSetApplier applier, Connection connection)
            throws SQLException, InterruptedException {
        boolean numbered = certifier.numbered(writeSet);
        boolean won = certifier.certify(writeSet);
        if (writeSet.origin().equals(name)) {
            OwnTransaction transaction = own.remove(writeSet.txnId());
            if (transaction != null) {
                transaction.decision.complete(won);
                transaction.finished.await();
            }
            if (won && numbered) {
                certifiedCommitted++;
            }
            return;
        }
        if (!won) {
            return;  // its origin re-executes it; nothing to apply
        }
        if (!writeSet.changes().isEmpty()) {
            long start = System.nanoTime();
            applyMakingRoom(writeSet, applier, connection);
            statistics.applied(writeSet.procedure(), System.nanoTime() - start);
        }
        if (numbered) {
            certifiedCommitted++;
        }
        visibility.markVisible(writeSet.txnId());
        progress.add(writeSet.txnId());
    }

    /**
     * Applies a certified write-set. A local transaction may hold a row it needs: such a transaction will lose its
     * own certification (this winner comes first in the total order), so it is doomed (if it already broadcast) or
     * cancelled (if still executing) to release its locks, and the apply is retried.
     */
    private void applyMakingRoom(WriteSet writeSet, WriteSetApplier applier, Connection connection)
            throws SQLException, InterruptedException {
        Set<String> rows = certifier.rows(writeSet.changes());
        try {
            applyMakingRoom(writeSet, applier, connection, rows);
        } finally {
            synchronized (room) {
                makingRoom = false;
                room.notifyAll();
            }
        }
    }

    private void applyMakingRoom(WriteSet writeSet, WriteSetApplier applier, Connection connection, Set<String> rows)
            throws SQLException, InterruptedException {
        while (true) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET LOCAL lock_timeout = '100ms'");
                applier.apply(writeSet.changes());
                connection.commit();
                return;
            } catch (SQLException e) {
                rollbackQuietly(connection);
                if (!"55P03".equals(e.getSQLState()) || !running) {
                    throw e;
                }
                makingRoom = true;
                for (OwnTransaction transaction : own.values()) {
                    if (!java.util.Collections.disjoint(transaction.rows, rows)) {
                        transaction.doomed = true;
                    }
                }
                for (Worker worker : workers) {
                    if (worker.cancellable) {
                        try {
                            worker.connection.unwrap(PGConnection.class).cancelQuery();
                        } catch (SQLException ignored) {
                            // It finished meanwhile; the retry will tell.
                        }
                    }
                }
                Thread.sleep(5);
            }
        }
    }

    // ---- messages ----

    private void broadcast(WriteSet writeSet) {
        try {
            sendToGroup(writeSet);
        } catch (Exception e) {
            throw new IllegalStateException("cannot broadcast the write-set of transaction " + writeSet.txnId() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Hands a message to the write-set group's total-order broadcast (write-sets and ABANDON decisions). */
    private void sendToGroup(Message message) throws Exception {
        writeSets.send(new BytesMessage(null, WireCodec.encode(message)));
    }

    private void reply(Execute call, CallOutcome outcome) {
        sendControl(call.client(), outcome);
    }

    private void sendControl(Address target, Message message) {
        try {
            control.send(new BytesMessage(target, WireCodec.encode(message)));
        } catch (Exception e) {
            if (running) {
                System.err.println("gargamel node " + name + ": cannot send " + message.type() + " to " + target + ": " + e);
            }
        }
    }

    private void runProgress() {
        long[] batch = new long[PROGRESS_BATCH];
        while (running) {
            int count = 0;
            Long txn;
            while (count < batch.length && (txn = progress.poll()) != null) {
                batch[count++] = txn;
            }
            Address target = scheduler;
            if (count > 0 && target != null) {
                sendControl(target, new Progress(name, java.util.Arrays.copyOf(batch, count)));
            }
            if (count < batch.length) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void announce(View view) {
        Address found = null;
        for (Address member : view.getMembers()) {
            if (GargamelClient.SCHEDULER_NAME.equals(NameCache.get(member))) {
                found = member;
            }
        }
        scheduler = found;
        if (found != null) {
            sendControl(found, new NodeHello(name, config.workers()));
        }
    }

    private final class ControlListener implements Receiver {
        @Override
        public void receive(org.jgroups.Message message) {
            Message decoded;
            try {
                decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
            } catch (MalformedMessageException e) {
                System.err.println("gargamel node " + name + ": dropped a malformed message from " + message.getSrc()
                        + ": " + e.getMessage());
                return;
            }
            if (decoded instanceof Execute call) {
                if (call.worker() < 0 || call.worker() >= workers.size()) {
                    sendControl(call.client(), CallOutcome.rejected(call.callId(), call.txnId(), name + " has no worker "
                            + call.worker() + " (it runs " + workers.size() + ")"));
                    return;
                }
                workers.get(call.worker()).queue.add(call);
            } else if (decoded instanceof Abandon abandon) {
                // From the scheduler: settle it in the total order, at every node alike.
                try {
                    sendToGroup(abandon);
                } catch (Exception e) {
                    System.err.println("gargamel node " + name + ": cannot broadcast " + abandon + ": " + e.getMessage());
                }
            } else {
                System.err.println("gargamel node " + name + ": unexpected " + decoded.type() + " from " + message.getSrc());
            }
        }

        @Override
        public void viewAccepted(View view) {
            announce(view);
        }
    }

    private final class WriteSetListener implements Receiver {
        @Override
        public void receive(org.jgroups.Message message) {
            try {
                Message decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
                if (decoded instanceof WriteSet || decoded instanceof Abandon) {
                    delivered.add(decoded);
                    return;
                }
                System.err.println("gargamel node " + name + ": unexpected " + decoded.type() + " in the write-set group");
            } catch (MalformedMessageException e) {
                System.err.println("gargamel node " + name + ": dropped a malformed write-set from " + message.getSrc()
                        + ": " + e.getMessage());
            }
        }
    }

    // ---- helpers ----

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // A broken connection: the next statement reports it.
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing anyway.
        }
    }
}
