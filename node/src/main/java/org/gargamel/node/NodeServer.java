package org.gargamel.node;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.validate.LiveValidator;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Mode;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LogUnavailableException;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.jdbc.Rollbacks;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Agreement;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.EpochClaim;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.NodeRefused;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Superseded;
import org.gargamel.common.wire.TakeOver;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.common.wire.VisibilityQuery;
import org.gargamel.node.access.ReadConnections;
import org.gargamel.node.access.RoleCheck;
import org.gargamel.node.apply.ApplyLoop;
import org.gargamel.node.capture.Increments;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.certify.PrimaryKeys;
import org.gargamel.node.execution.AdHocReads;
import org.gargamel.node.execution.Agreements;
import org.gargamel.node.execution.ArgumentTypes;
import org.gargamel.node.execution.CallCompletion;
import org.gargamel.node.execution.ExecutionContext;
import org.gargamel.node.execution.IncrementPolicy;
import org.gargamel.node.execution.Worker;
import org.gargamel.node.execution.WorkerConnection;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.sequence.SequenceSlots;
import org.gargamel.node.shipping.SiteShipping;
import org.gargamel.node.transfer.SchemaCopy;
import org.gargamel.node.transfer.SchemaDigest;
import org.gargamel.node.transfer.StateTransfer;
import org.gargamel.node.transfer.TaintedReplicaException;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.AnsweredCalls;
import org.gargamel.node.writeset.CommitOrder;
import org.gargamel.node.writeset.LogBarrier;
import org.gargamel.node.writeset.LogStateMachine;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.ReplicaState;
import org.gargamel.node.writeset.WriteSetLog;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node (DESIGN.md §5): owns one PostgreSQL replica. This class is its lifecycle and wiring; the work is done by
 * its parts, each in its own package:
 * <ul>
 * <li>{@code execution}: K {@link Worker}s run the calls the scheduler placed on them, in order, each once its
 * back-dependencies are visible here, through the mode's strategy (scheduled PSI/SI, or certified round-robin);</li>
 * <li>{@code writeset}: the write-set group (total-order broadcast) and the local transactions awaiting their own
 * write-set's delivery;</li>
 * <li>{@code apply}: the {@link ApplyLoop} applies the other replicas' write-sets in delivery order;</li>
 * <li>{@code certify}: round-robin certification; {@code capture}: write-set capture in PostgreSQL;</li>
 * <li>{@code visibility}: which transactions are visible here; {@code progress}: reports them to the scheduler.</li>
 * </ul>
 * Every thread is supervised: a failure that could leave this replica different from the others stops the node
 * ({@link #failure()} completes; the process exits non-zero), anything else gives the call an outcome.
 */
public final class NodeServer implements AutoCloseable {
    /** Printed once the node has joined both groups; the demo waits for it. */
    public static final String READY = "gargamel node ready";

    private static final Logger LOG = LoggerFactory.getLogger(NodeServer.class);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final NodeConfig config;
    private final RaftLog.Patience logPatience;
    private final String name;
    private final NodeStatistics statistics;
    private final Supervisor supervisor;
    private final Visibility visibility = new Visibility();
    private final OwnTransactions own = new OwnTransactions();
    private final List<Worker> workers = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private HikariDataSource dataSource;
    /** Connections logged in as the roles this node serves, for ad-hoc reads (docs/frontend.md, Security). */
    private ReadConnections reads;

    private Connection applierConnection;
    private ProgressReporter progress;
    private ApplyLoop applier;
    /** The scheduler this node serves (has joined, caught up, announced ready), or null. */
    private volatile Address servingAt;
    /** The scheduler this node is joining, or null. */
    private final java.util.concurrent.atomic.AtomicReference<Address> joining =
            new java.util.concurrent.atomic.AtomicReference<>();
    /** The DRAIN_QUERYs of joins, by query id: their answers say the scheduler has handled the joining hello. */
    private final Map<Long, CompletableFuture<Void>> joinQueries = new ConcurrentHashMap<>();

    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);
    /** How often the database watch probes this node's PostgreSQL. */
    private static final Duration DATABASE_WATCH = Duration.ofSeconds(1);
    /** The database watch's own connection (closed with the node). */
    private Connection databaseWatch;

    private JChannel control;
    private WriteSetLog log;
    /** A write-set log per site: what this node ships from the other sites' logs into its own (else null). */
    private SiteShipping shipping;

    private volatile Address scheduler;
    /** Which scheduler the write-set log made active, and its epoch. */
    private final ActiveScheduler activeScheduler;
    /** Outcomes by call, to answer a resubmitted call instead of running it twice. */
    private final AnsweredCalls answeredCalls = new AnsweredCalls();
    /** Multi-site: where the schedule log placed this node's provisional calls, until their workers take it. */
    private final Agreements agreements = new Agreements(visibility::wakeAll);
    /** What this node must share with the scheduler and the other nodes, sent in every NODE_HELLO. */
    private ClusterProfile profile;

    public NodeServer(NodeConfig config) {
        this(config, RaftLog.Patience.DEFAULT);
    }

    /** With the write-set log's waits given (tests shorten them, to outlast them in seconds). */
    NodeServer(NodeConfig config, RaftLog.Patience logPatience) {
        this.config = config.validate();
        this.name = config.name();
        this.activeScheduler = new ActiveScheduler(config.site());
        this.statistics = new NodeStatistics(name);
        this.supervisor = new Supervisor(name);
        this.logPatience = logPatience;
    }

    public String name() {
        return name;
    }

    public NodeStatistics statistics() {
        return statistics;
    }

    /** The members of this node's write-set log (empty before it started). */
    public List<String> writeSetLogMembers() {
        WriteSetLog current = log;
        return current == null ? List.of() : current.members();
    }

    /** A write-set log per site: the index in {@code site}'s log of the last entry shipped from there taken here. */
    public long shippedThrough(String site) {
        ApplyLoop current = applier;
        return current == null ? 0 : current.shipped().through(site);
    }

    /** How far this node knows the write-set log committed (and handed to its applier); -1 before it started. */
    public long writeSetLogCommitIndex() {
        WriteSetLog current = log;
        return current == null ? -1 : current.commitIndex();
    }

    /**
     * Whether {@code failure} (of {@link #start} or {@link #failure}) means this replica holds what the others do not:
     * a new start rebuilds it from a peer (docs/node.md, Rebuild).
     */
    public static boolean mustBeRebuilt(Throwable failure) {
        return TaintedReplicaException.isCause(failure);
    }

    /**
     * Whether {@code failure} (of {@link #start} or {@link #failure}) is the loss of this node's PostgreSQL: a broken
     * or refused connection (SQLSTATE class 08) or a server shutting down, crashing or starting (57P01-57P03). The node
     * stopped on its first failed statement, so it answered nothing it did not know, and left the groups once closed:
     * its calls are settled by the others. Once the database answers again, a new start catches up from the log (and
     * rebuilds from a peer if it must): {@code gargamel node} does that by itself (docs/node.md, Fencing).
     */
    public static boolean lostItsDatabase(Throwable failure) {
        if (mustBeRebuilt(failure)) {
            return false;
        }
        return SqlErrorKind.isConnectionLoss(failure);
    }

    /** Whether this node's PostgreSQL accepts a connection now (after losing it: when to start again). */
    public static boolean databaseAnswers(NodeConfig config) {
        java.util.Properties properties = new java.util.Properties();
        if (config.user() != null) {
            properties.setProperty("user", config.user());
        }
        if (config.password() != null) {
            properties.setProperty("password", config.password());
        }
        properties.setProperty("connectTimeout", "5");
        properties.setProperty("socketTimeout", "10");
        try (Connection connection = java.sql.DriverManager.getConnection(config.jdbcUrl(), properties)) {
            return connection.isValid(5);
        } catch (SQLException e) {
            return false; // refused, or 57P03 while it recovers from its crash
        }
    }

    /** Completes with the reason if the node fails and must stop (its replica would otherwise diverge). */
    public CompletableFuture<Throwable> failure() {
        return supervisor.failure();
    }

    /**
     * Takes a peer's schema and data if the database is empty (docs/node.md, Rebuild), validates the rules against the
     * database, installs write-set capture, opens the workers' connections, joins the write-set log and catches up
     * with it, aligns the sequences to this node's slot (docs/node.md, Sequences), then joins the control group and
     * announces itself to the scheduler. Fails with a message naming the problem, and leaves nothing running, if any
     * step fails.
     */
    public void start() throws Exception {
        try {
            ClassifierRules rules = config.loadRules();
            AdHocReads adHocReads = new AdHocReads(
                    config.adhocReads(),
                    config.adhocStatementTimeoutSeconds(),
                    config.adhocMaxRows(),
                    config.adhocMaxCharacters());
            dataSource = new HikariDataSource(poolConfig());
            PrimaryKeys primaryKeys;
            long commitOrderDrawn;
            try (Connection connection = dataSource.getConnection()) {
                boolean empty = SchemaCopy.isEmpty(connection, "public");
                connection.commit();
                if (empty) {
                    takeSchemaAndData(connection);
                }
                new LiveValidator().validate(rules, connection);
                connection.commit();
                // Deltas are captured only where they are shipped (gargamel mode, PSI): elsewhere the trigger is as
                // before.
                WriteSetCapture.install(
                        connection, "public", config.usesIncrements() ? rules.incrementColumns() : Map.of());
                ReplicaState.install(connection);
                connection.commit();
                reads = new ReadConnections(name, config.jdbcUrl(), config.roles(), adHocReads.maxResultBytes());
                RoleCheck.check(name, connection, reads, config.roles());
                connection.commit();
                String tainted = ReplicaState.tainted(connection);
                connection.commit();
                if (tainted != null) {
                    rebuild(connection, tainted);
                }
                primaryKeys = PrimaryKeys.read(connection, "public");
                profile = new ClusterProfile(
                        config.mode(),
                        config.isolation(),
                        rules.digest(),
                        SchemaDigest.of(connection, "public"),
                        config.replicas());
                commitOrderDrawn = ReplicaState.drawCommitOrder(connection);
                connection.commit();
            }
            control = Channels.control(config.controlGroup(), name);
            progress = new ProgressReporter(name, () -> scheduler, this::sendControl);
            Certification certification = config.mode() == Mode.ROUND_ROBIN
                    ? new Certification(primaryKeys, own, this::cancelExecutions)
                    : null;
            applierConnection = dataSource.getConnection();
            List<Connection> parallelConnections = new ArrayList<>();
            if (config.appliesInParallel()) {
                for (int i = 0; i < config.appliers(); i++) {
                    parallelConnections.add(dataSource.getConnection());
                }
            }
            applier = new ApplyLoop(
                    name,
                    applierConnection,
                    visibility,
                    own,
                    certification,
                    progress,
                    statistics,
                    activeScheduler,
                    answeredCalls,
                    (claimant, epoch) -> {
                        if (control.isConnected()) {
                            sendControl(
                                    claimant,
                                    claimant.equals(activeScheduler.claimant())
                                            ? new EpochGranted(name, epoch, activeScheduler.predecessorEpoch())
                                            : new Superseded(name, epoch));
                        }
                    },
                    parallelConnections.isEmpty()
                            ? ApplyLoop.ParallelAppliers.none()
                            : new ApplyLoop.ParallelAppliers(parallelConnections, primaryKeys, config.si()),
                    config.applyGroup());
            supervisor.start(name + "-applier", applier::run); // before the log: it replays at once
            log = new WriteSetLog(
                    name,
                    config.writeSetCluster(),
                    Channels.writeSetLog(
                            config.writeSetGroup(), name, config.raftSettings(), config.site(), config.writeSetLinks()),
                    new LogStateMachine(
                            name,
                            applier::deliver,
                            () -> log.firstIndex(),
                            applier::persistedIndex,
                            applier::awaitHandled,
                            applier::startsFromSnapshot,
                            activeScheduler,
                            applier::mustBeRebuilt,
                            applier.shipped()),
                    logPatience);
            if (config.siteLog()) {
                shipping = new SiteShipping(name, log, log::isLeader, applier.shipped());
                progress.logPositionFrom(applier.shipped()::ownPosition);
            }
            long incarnation = new SecureRandom().nextLong();
            ExecutionContext context = new ExecutionContext(
                    name,
                    config.isolation(),
                    ArgumentTypes.from(rules),
                    visibility,
                    log,
                    new CommitOrder(log, incarnation, commitOrderDrawn),
                    own,
                    statistics,
                    new Completion(),
                    activeScheduler,
                    answeredCalls,
                    rules,
                    config.checksRules() ? config.rulesCheck() : RulesCheck.OFF,
                    adHocReads,
                    reads,
                    new IncrementPolicy(
                            rules, new Increments(primaryKeys.all()), config.usesIncrements(), config.incrementProbe()),
                    agreements,
                    new LogBarrier(
                            name,
                            log,
                            applier::markApplied,
                            applier::forgetMark,
                            config.siteLog() ? applier.shipped() : null),
                    config.siteLog());
            for (int i = 0; i < config.workers(); i++) {
                Connection connection = dataSource.getConnection();
                WriteSetCapture.enableForSession(connection);
                WorkerConnection worker = WorkerConnection.dedicate(name + " worker " + i, connection);
                workers.add(
                        certification != null
                                ? Worker.certified(i, worker, context, certification)
                                : Worker.scheduled(i, worker, context));
            }
            for (Worker worker : workers) {
                supervisor.start(name + "-worker-" + worker.index(), worker::run);
            }
            supervisor.start(name + "-progress", progress::run);
            Connection watched = dataSource.getConnection();
            watched.setAutoCommit(true); // its probes must not hold a snapshot open
            databaseWatch = watched;
            supervisor.start(name + "-database-watch", () -> watchDatabase(watched));
            log.connect();
            catchUp(applier);
            alignSequences();
            if (shipping != null) {
                followOtherSites(shipping);
            }
            control.setReceiver(new MessageEndpoint(name + " control", supervisor::fail)
                    .on(Execute.class, MessageType.EXECUTE, (source, call) -> dispatch(source, call))
                    // From a site scheduler: where the schedule log placed a provisional call (docs/multisite.md).
                    .on(Agreement.class, MessageType.AGREEMENT, (source, agreement) -> agreements.decided(agreement))
                    .on(VisibilityQuery.class, MessageType.VISIBILITY_QUERY, this::answerVisibility)
                    // From the scheduler: settle a departed node's transactions in the log's order, at every node
                    // alike.
                    .on(Abandon.class, MessageType.ABANDON, (source, decision) -> appendDecision(decision))
                    // A scheduler taking over: its claim goes into the log, whose order decides (every node appends
                    // a copy; the first one counts).
                    .on(TakeOver.class, MessageType.TAKE_OVER, (source, takeOver) -> appendClaim(source))
                    .on(
                            NodeRefused.class,
                            MessageType.NODE_REFUSED,
                            (source, refused) -> supervisor.fail(
                                    new ConfigException(name + " was refused by the scheduler: " + refused.reason())))
                    .on(DrainStatus.class, MessageType.DRAIN_STATUS, (source, status) -> {
                        CompletableFuture<Void> handled = joinQueries.remove(status.queryId());
                        if (handled != null) {
                            handled.complete(null);
                        }
                    })
                    .onView(this::announce));
            control.connect(config.controlCluster());
            announce(control.getView());
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /**
     * A write-set log per site: joins every other site's log as a learner and ships its entries into this site's log
     * while this node leads it (docs/multisite.md, Site-local acknowledgement). After the catch-up, so that what this
     * site's log took is known before anything is shipped again.
     */
    private void followOtherSites(SiteShipping shipping) throws Exception {
        for (String other : config.otherSites()) {
            SiteShipping.Follower follower = shipping.follower(other);
            RaftLog learner = new RaftLog(
                    name,
                    "write-set log of site " + other,
                    // Its own port: the configured one is this site's log's (TCPPING needs a fixed one).
                    Channels.writeSetLog(
                            learnerGroup(), name, config.learnerSettings(other), config.site(), config.writeSetLinks()),
                    follower,
                    logPatience);
            follower.firstIndexFrom(learner::firstIndex);
            shipping.learning(learner);
            learner.connect(NodeConfig.writeSetCluster(other));
        }
        shipping.start();
    }

    /** A learner channel's group settings: the write-set group's, on a free port of the same address. */
    private GroupConfig learnerGroup() {
        GroupConfig group = config.writeSetGroup();
        return group.transport() == GroupConfig.Transport.TCP
                ? group.withBindPort(LoopbackPorts.pickOn(group.bindAddress()))
                : group;
    }

    /**
     * Gives this node its own residue class of every sequence (docs/node.md, Sequences): stride = the number of
     * replicas, slot = this node's index among them. After the catch-up, just before the node joins the control group:
     * no call has run yet, a rebuild from a peer (which copies the peer's sequences, in the peer's class) is behind,
     * and the high-water mark counts every row the log brought back, including this node's own rows whose commit a
     * crash lost with the sequence's advance. The write-sets applied from now on carry other classes' values.
     */
    private void alignSequences() throws SQLException {
        int stride = config.replicas().size();
        int slot = config.replicas().indexOf(name);
        try (Connection connection = dataSource.getConnection()) {
            List<SequenceSlots.Alignment> alignments;
            try {
                alignments = SequenceSlots.align(connection, "public", stride, slot);
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                Rollbacks.after(connection, e);
                throw e;
            }
            for (SequenceSlots.Alignment alignment : alignments) {
                if (alignment.outcome() == SequenceSlots.Outcome.EXHAUSTED) {
                    LOG.error("{}: {}", name, alignment.describe());
                } else {
                    LOG.info("{}: {}", name, alignment.describe());
                }
            }
        }
    }

    /**
     * This replica's database holds no table and no function in schema {@code public}: a new replica (or one that lost
     * its disk). It takes the schema and the data of a peer, at that peer's position in the write-set log, before
     * anything else (docs/node.md, Rebuild).
     */
    private void takeSchemaAndData(Connection connection) throws SQLException {
        if (config.peers().isEmpty()) {
            throw new IllegalStateException(name + ": the database holds no tables in schema public: load it "
                    + "(scripts/gargamel tpcc load) or name the other replicas' JDBC URLs under 'peers' to copy "
                    + "them from (docs/node.md, Rebuild)");
        }
        LOG.warn("{}: this replica's database is empty: taking schema and data from a peer", name);
        ReplicaState.install(connection); // the peer's position is written into it
        connection.commit();
        copyFromAPeer(connection, "its database is empty", true);
    }

    /**
     * This replica holds what the others do not ({@code reason}): it takes a copy of a peer, at that peer's position in
     * the write-set log, before it joins the log (docs/node.md, Rebuild). The first peer that can be copied is used.
     */
    private void rebuild(Connection connection, String reason) throws SQLException {
        if (config.peers().isEmpty()) {
            throw new IllegalStateException(name + " must be rebuilt before it serves (" + reason + "), and its "
                    + "configuration names no peers to copy: add the other replicas' JDBC URLs under 'peers' "
                    + "(docs/node.md, Rebuild)");
        }
        LOG.warn("{}: rebuilding this replica from a peer: {}", name, reason);
        copyFromAPeer(connection, reason, false);
    }

    /** Copies the first of the peers that can be copied (with the schema: into an empty database). */
    private void copyFromAPeer(Connection connection, String reason, boolean withSchema) throws SQLException {
        List<String> failures = new ArrayList<>();
        for (String peer : config.peers()) {
            try {
                StateTransfer.Copied copied = StateTransfer.copy(peer, connection, "public", withSchema);
                LOG.info("{}: rebuilt: {}", name, copied.describe());
                return;
            } catch (SQLException e) {
                failures.add(Secrets.maskUrl(peer) + ": " + e.getMessage());
            }
        }
        throw new IllegalStateException(
                name + " must be rebuilt before it serves (" + reason + "), and no peer could be copied: " + failures);
    }

    /**
     * Waits until this replica reflects every entry the write-set log committed before now: a mark of this start is
     * appended and waited for (the log is replayed and the missing entries come from the leader meanwhile). Only then
     * does the node announce itself, so a restarted node never runs a call on a stale replica.
     */
    private void catchUp(ApplyLoop applier) throws Exception {
        long nonce = new SecureRandom().nextLong();
        CompletableFuture<Long> applied = applier.markApplied(nonce);
        long started = System.nanoTime();
        appendCatchUpMark(new LogMark(name, nonce), started);
        while (!applied.isDone()) {
            if (supervisor.failure().isDone()) {
                throw new IllegalStateException(
                        name + " failed while catching up with the write-set log: "
                                + supervisor.failure().getNow(null).getMessage(),
                        supervisor.failure().getNow(null));
            }
            try {
                // Wakes at once if the node fails meanwhile (a replica found tainted while catching up).
                CompletableFuture.anyOf(applied, supervisor.failure()).get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                LOG.info(
                        "{}: catching up with the write-set log ({} s; applied up to entry {})",
                        name,
                        (System.nanoTime() - started) / 1_000_000_000,
                        applier.persistedIndex());
            }
        }
        LOG.info("{}: caught up with the write-set log at entry {}", name, applied.get());
    }

    /**
     * Appends the catch-up mark, waiting as long as it takes for the log to have a leader and a majority: a node that
     * is not serving answers nobody, so, unlike a serving node, it gains nothing by stopping. After a partition heals,
     * the log's group can take longer to merge than one append may wait. A mark appended twice is harmless: the second
     * copy completes nothing.
     */
    private void appendCatchUpMark(LogMark mark, long started) throws Exception {
        while (true) {
            try {
                log.append(mark, "the catch-up mark").get();
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof LogUnavailableException)
                        || closed.get()
                        || supervisor.failure().isDone()) {
                    throw e;
                }
                LOG.warn(
                        "{}: waiting for a majority of the write-set log to catch up ({} s): {}",
                        name,
                        (System.nanoTime() - started) / 1_000_000_000,
                        e.getCause().getMessage());
            }
        }
    }

    /**
     * Fencing (docs/node.md): notices within about a second that this node's PostgreSQL is gone, even while no call
     * runs here, and stops the node, so that it leaves the groups and its calls are settled by the others rather than
     * placed here and failed one by one. A failed statement of a worker or of the apply loop stops it the same way.
     */
    private void watchDatabase(Connection connection) throws InterruptedException {
        while (true) {
            Thread.sleep(DATABASE_WATCH.toMillis());
            try (Statement probe = connection.createStatement()) {
                probe.execute("SELECT 1");
            } catch (SQLException e) {
                throw new FatalException(
                        name + " lost its database " + Secrets.maskUrl(config.jdbcUrl()) + ": " + e.getMessage(),
                        e.getSQLState() != null ? e : new SQLException(e.getMessage(), "08006", e));
            }
        }
    }

    private void appendClaim(Address claimant) {
        Futures.whenDone(
                log.append(new EpochClaim(claimant, config.site()), "the claim of scheduler " + claimant),
                (done, failure) -> {
                    if (failure != null && !closed.get()) {
                        LOG.warn(
                                "{}: could not append the claim of scheduler {}: {}",
                                name,
                                claimant,
                                failure.toString());
                    }
                });
    }

    /**
     * A site scheduler that took over asks which calls of the schedule log are visible here (docs/multisite.md): the
     * visible ones go back at once in a PROGRESS; the others are reported as usual when they become visible.
     */
    private void answerVisibility(Address source, VisibilityQuery query) {
        long[] visible = java.util.Arrays.stream(query.transactions())
                .filter(visibility::isVisible)
                .toArray();
        sendControl(source, new Progress(name, visible, progress.logPosition()));
    }

    /** From the scheduler: its decision goes into the log (each survivor appends a copy; the first decides). */
    private void appendDecision(Abandon decision) {
        Futures.whenDone(log.append(decision, decision.describe()), (done, failure) -> {
            if (failure != null) {
                supervisor.fail(failure);
            }
        });
    }

    private HikariConfig poolConfig() {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(config.jdbcUrl());
        if (config.user() != null) {
            pool.setUsername(config.user());
        }
        if (config.password() != null) {
            pool.setPassword(config.password());
        }
        pool.setPoolName(name);
        // The workers', the applier's (and the parallel appliers') and the database watch's, and one for the start-up's
        // own work (the sequences are
        // aligned once the others are taken).
        pool.setMaximumPoolSize(config.workers() + 3 + (config.appliesInParallel() ? config.appliers() : 0));
        pool.setMinimumIdle(0);
        pool.setAutoCommit(false);
        if (config.durableLog()) {
            // Tashkent's point: the log unites ordering with durability, so PostgreSQL may flush its WAL in the
            // background, many commits per flush. What must survive a crash that the log cannot bring back (a taint
            // mark) commits with synchronous_commit on (docs/node.md, Durability).
            pool.setConnectionInitSql("SET synchronous_commit TO off");
        }
        pool.setConnectionTimeout(10_000);
        return pool;
    }

    public String describe() {
        return name + " (" + config.workers() + " workers, mode " + config.mode() + ", isolation " + config.isolation()
                + ") on " + Secrets.maskUrl(config.jdbcUrl());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return; // idempotent: the statistics are written once
        }
        if (control != null) {
            control.close();
        }
        if (shipping != null) {
            shipping.close();
        }
        if (log != null) {
            log.close();
        }
        visibility.wakeAll();
        supervisor.stop(STOP_GRACE);
        if (applier != null) {
            applier.close();
        }
        for (Worker worker : workers) {
            worker.connection().close();
        }
        if (applierConnection != null) {
            closeQuietly(applierConnection);
        }
        if (databaseWatch != null) {
            closeQuietly(databaseWatch);
        }
        if (reads != null) {
            reads.close();
        }
        if (dataSource != null) {
            dataSource.close();
        }
        if (config.statsFile() != null) {
            try {
                statistics.write(Path.of(config.statsFile()));
            } catch (IOException e) {
                LOG.warn("{}: cannot write {}: {}", name, config.statsFile(), e.getMessage());
            }
        }
    }

    /** A call from the scheduler: to its worker's queue, or rejected at once if that worker does not exist. */
    private void dispatch(Address source, Execute call) {
        if (activeScheduler.superseded(source)) {
            // A scheduler the log superseded, still alive (it was cut off): its call never runs here (the worker drops
            // it as stale), and it is told, so that it stops and its clients follow the active scheduler.
            sendControl(source, new Superseded(name, activeScheduler.epoch()));
        }
        if (call.worker() < 0 || call.worker() >= workers.size()) {
            sendControl(
                    call.client(),
                    CallOutcome.rejected(
                            call.callId(),
                            call.txnId(),
                            name + " has no worker " + call.worker() + " (it runs " + workers.size() + ")"));
            return;
        }
        workers.get(call.worker()).submit(call);
    }

    /** How a call ends here: visible here and reported to the scheduler; its outcome to its client. */
    private final class Completion implements CallCompletion {
        @Override
        public void visible(Execute call) {
            visibility.markVisible(call.txnId());
            progress.visible(call.txnId());
        }

        @Override
        public void visibleHere(Execute call) {
            visibility.markVisible(call.txnId());
        }

        @Override
        public void reply(Execute call, CallOutcome outcome) {
            sendControl(call.client(), outcome);
        }

        @Override
        public void fail(Throwable reason) {
            supervisor.fail(reason);
        }
    }

    /** Round-robin: cancels every local execution in progress, to make room for a certified write-set. */
    private void cancelExecutions() {
        for (Worker worker : workers) {
            worker.connection().cancelIfExecuting();
        }
    }

    /**
     * A reply or a report on the control channel. A send that fails (the client or scheduler left, the channel is
     * closing) is logged, not fatal: the client's own timeout gives the call an outcome.
     */
    private void sendControl(Address target, Message message) {
        try {
            MessageEndpoint.send(control, target, message);
        } catch (Exception e) {
            if (!supervisor.stopping()) {
                LOG.warn("{}: cannot send {} to {}: {}", name, message.type(), target, e.toString());
            }
        }
    }

    /** Tests: the view this node's control channel installed last. */
    View controlView() {
        return control.getView();
    }

    /**
     * Tests: this node takes {@code view} for its control view, as when its channel installs it. JGroups' views are not
     * symmetric during a merge: a test shows this node a view without the scheduler while the scheduler still counts
     * it and their messages still flow.
     */
    void viewAccepted(View view) {
        announce(view);
    }

    /**
     * A view with the scheduler in it: a node already serving at that scheduler announces itself again; otherwise it
     * joins (on a thread of its own, since catching up takes a while): NODE_HELLO joining, so the scheduler counts it
     * for garbage collection from now on; a DRAIN_QUERY, whose answer says the scheduler has handled that; a catch-up
     * mark appended to the write-set log and applied here, so every transaction the scheduler may already have
     * collected is reflected here; then NODE_HELLO ready, and calls come (docs/protocol.md, Membership).
     */
    private void announce(View view) {
        Address found = followedScheduler(view);
        if (!java.util.Objects.equals(found, scheduler) || view instanceof org.jgroups.MergeView) {
            LOG.info(
                    "{}: {} view {} ({} members): {}",
                    name,
                    view instanceof org.jgroups.MergeView ? "merged" : "new",
                    view.getViewId(),
                    view.size(),
                    found == null ? "no scheduler in it" : "following the scheduler at " + found);
        }
        scheduler = found;
        if (found == null || view instanceof org.jgroups.MergeView) {
            // Out of sight of the scheduler (a partition, or it died), or back from a partition: the scheduler may
            // have taken this node for departed and settled its calls without it, so it joins again in two steps
            // (caught up with the log first) rather than announce itself ready at once.
            servingAt = null;
        }
        if (found == null) {
            return;
        }
        if (config.siteLog()) {
            // A successor site scheduler learns at once how far this site's log has come: its placements of other
            // sites' calls must cover every call its predecessor forgot (docs/multisite.md).
            sendControl(found, new Progress(name, new long[0], progress.logPosition()));
        }
        if (found.equals(servingAt)) {
            sendControl(found, new NodeHello(name, config.workers(), true, profile));
            return;
        }
        if (found.equals(joining.getAndSet(found))) {
            return; // already joining this scheduler
        }
        Address target = found;
        Thread thread = new Thread(() -> join(target), name + "-join");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The scheduler this node follows in {@code view}: the oldest one the write-set log has not superseded (any other
     * stands by). Every superseded scheduler in the view is told so (SUPERSEDED with the active epoch): it was cut off,
     * not dead, and a merge brought it back. A merged view lists its members sorted by address, not by age, so the old
     * scheduler may come before the active one or after it; either way it must stop, and this node goes on at the
     * active one (its reports must not go to a scheduler that is about to stop: that one's transactions would stay in
     * flight at the active scheduler forever). Null if the view has no such scheduler.
     */
    private Address followedScheduler(View view) {
        Address followed = null;
        for (Address member : view.getMembers()) {
            if (!GargamelClient.SCHEDULER_NAME.equals(org.jgroups.util.NameCache.get(member))) {
                continue;
            }
            if (activeScheduler.superseded(member)) {
                sendControl(member, new Superseded(name, activeScheduler.epoch()));
            } else if (followed == null) {
                followed = member;
            }
        }
        return followed;
    }

    private void join(Address target) {
        try {
            awaitTakeOver(target);
            sendControl(target, new NodeHello(name, config.workers(), false, profile));
            long queryId = new SecureRandom().nextLong();
            CompletableFuture<Void> handled = new CompletableFuture<>();
            joinQueries.put(queryId, handled);
            sendControl(target, new DrainQuery(queryId));
            handled.get(JOIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            catchUp(applier);
            servingAt = target;
            sendControl(target, new NodeHello(name, config.workers(), true, profile));
            LOG.info("{}: serving at {}", name, target);
        } catch (Exception e) {
            if (!closed.get()) {
                LOG.warn(
                        "{}: could not join the scheduler at {} (the next view change tries again): {}",
                        name,
                        target,
                        e.toString());
            }
        } finally {
            joining.compareAndSet(target, null);
        }
    }

    /**
     * Scheduler failover (docs/protocol.md): before joining a new scheduler, the log must have made it active here (if
     * this node ever saw a claim: a node that never did has no earlier work, and a claim compacted out of the log is
     * old), and this node's calls of earlier epochs must be done: none running, and the entries of those that ran in
     * the log. The new scheduler answers no joining node until every node that applied its claim has said hello, so
     * no call of the new epoch runs anywhere before every earlier write-set is in the log ahead of it.
     */
    private void awaitTakeOver(Address target) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        while (activeScheduler.claimant() != null && !target.equals(activeScheduler.claimant())) {
            if (closed.get() || !target.equals(scheduler)) {
                throw new TimeoutException("the scheduler " + target + " left before the log made it active");
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the log did not make " + target + " the active scheduler within "
                        + JOIN_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(10);
        }
        long floor = TransactionIds.firstOf(activeScheduler.epoch());
        while (workers.stream().anyMatch(worker -> worker.runningBefore(floor)) || own.anyBefore(floor)) {
            if (closed.get()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(
                        "calls of an earlier scheduler were still running after " + JOIN_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(10);
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
