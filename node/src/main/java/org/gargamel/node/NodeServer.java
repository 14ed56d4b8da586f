package org.gargamel.node;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.Mode;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.Superseded;
import org.gargamel.node.access.ReadConnections;
import org.gargamel.node.apply.ApplyLoop;
import org.gargamel.node.capture.Increments;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.certify.Certification;
import org.gargamel.node.execution.AdHocReads;
import org.gargamel.node.execution.Agreements;
import org.gargamel.node.execution.ArgumentTypes;
import org.gargamel.node.execution.CallCompletion;
import org.gargamel.node.execution.ExecutionContext;
import org.gargamel.node.execution.IncrementPolicy;
import org.gargamel.node.execution.Worker;
import org.gargamel.node.execution.WorkerConnection;
import org.gargamel.node.progress.ProgressReporter;
import org.gargamel.node.shipping.SiteShipping;
import org.gargamel.node.transfer.TaintedReplicaException;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.ActiveScheduler;
import org.gargamel.node.writeset.AnsweredCalls;
import org.gargamel.node.writeset.CommitOrder;
import org.gargamel.node.writeset.LogBarrier;
import org.gargamel.node.writeset.LogStateMachine;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.PatientAppend;
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
 * Its own parts, in this package: {@link NodeBootstrap} prepares the database, {@link LogCatchUp} catches up with the
 * write-set log, {@link DatabaseFence} watches the database, {@link SchedulerMembership} follows and joins the
 * scheduler, {@link ControlMessages} handles what the control channel brings, {@link OtherSiteFollower} learns the
 * other sites' logs. Every thread is supervised: a failure that could leave this replica different from the others
 * stops the node ({@link #failure()} completes; the process exits non-zero), anything else gives the call an outcome.
 */
public final class NodeServer implements AutoCloseable {
    /** Printed once the node has joined both groups; the demo waits for it. */
    public static final String READY = "gargamel node ready";

    private static final Logger LOG = LoggerFactory.getLogger(NodeServer.class);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final NodeConfig config;
    private final RaftLog.Patience logPatience;
    /** How often a node that is not serving says that it waits for the write-set log ({@link PatientAppend}). */
    private final Duration waitReports;

    private final String name;
    private final NodeStatistics statistics;
    private final Supervisor supervisor;
    private final NodeBootstrap bootstrap;
    private final SchedulerMembership membership;
    private final Visibility visibility = new Visibility();
    private final OwnTransactions own = new OwnTransactions();
    private final List<Worker> workers = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Which scheduler the write-set log made active, and its epoch. */
    private final ActiveScheduler activeScheduler;
    /** Outcomes by call, to answer a resubmitted call instead of running it twice. */
    private final AnsweredCalls answeredCalls = new AnsweredCalls();
    /** Multi-site: where the schedule log placed this node's provisional calls, until their workers take it. */
    private final Agreements agreements = new Agreements(visibility::wakeAll);

    private HikariDataSource dataSource;
    /** Connections logged in as the roles this node serves, for ad-hoc reads (docs/frontend.md, Security). */
    private ReadConnections reads;

    private Connection applierConnection;
    private ProgressReporter progress;
    private ApplyLoop applier;
    private LogCatchUp catchUp;
    private DatabaseFence fence;
    private JChannel control;
    private WriteSetLog log;
    /** A write-set log per site: what this node ships from the other sites' logs into its own (else null). */
    private SiteShipping shipping;
    /** What this node must share with the scheduler and the other nodes, sent in every NODE_HELLO. */
    private ClusterProfile profile;

    public NodeServer(NodeConfig config) {
        this(config, RaftLog.Patience.DEFAULT);
    }

    /** With the write-set log's waits given (tests shorten them, to outlast them in seconds). */
    NodeServer(NodeConfig config, RaftLog.Patience logPatience) {
        this(config, logPatience, PatientAppend.REPORT_EVERY);
    }

    /**
     * With the write-set log's waits given, and how often a node that is not serving says that it waits for the log
     * to take its catch-up mark or a decision ({@link PatientAppend}; tests shorten both).
     */
    NodeServer(NodeConfig config, RaftLog.Patience logPatience, Duration waitReports) {
        this.waitReports = waitReports;
        this.config = config.validate();
        this.name = config.name();
        this.activeScheduler = new ActiveScheduler(config.siteName());
        this.statistics = new NodeStatistics(name);
        this.supervisor = new Supervisor(name);
        this.logPatience = logPatience;
        this.bootstrap = new NodeBootstrap(name, config);
        this.membership = new SchedulerMembership(
                name,
                config.workers(),
                config.siteLog(),
                () -> profile,
                this::sendControl,
                activeScheduler,
                floor -> workers.stream().anyMatch(worker -> worker.runningBefore(floor)) || own.anyBefore(floor),
                () -> catchUp.run(),
                () -> progress.logPosition(),
                closed::get);
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
        return DatabaseFence.lostItsDatabase(failure);
    }

    /** Whether this node's PostgreSQL accepts a connection now (after losing it: when to start again). */
    public static boolean databaseAnswers(NodeConfig config) {
        return DatabaseFence.databaseAnswers(config.database());
    }

    /** Whether {@code txn}'s answer waits for its entry in the write-set log (for tests in this package). */
    boolean holdsAnswerUntilItsEntry(long txn) {
        return own.awaitsEntry(txn);
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
            AdHocReads adHocReads = config.adhoc().reads();
            dataSource = new HikariDataSource(bootstrap.poolConfig());
            NodeBootstrap.Prepared prepared;
            try (Connection connection = dataSource.getConnection()) {
                prepared = bootstrap.prepare(connection, rules, () -> openReads(adHocReads));
            }
            profile = prepared.profile();
            control = Channels.control(config.controlGroup(), name);
            progress = new ProgressReporter(name, membership::scheduler, this::sendControl);
            Certification certification = config.mode() == Mode.ROUND_ROBIN
                    ? new Certification(prepared.primaryKeys(), own, this::cancelExecutions)
                    : null;
            startApplier(prepared, certification);
            openLog();
            startWorkers(rules, adHocReads, prepared, certification);
            supervisor.start(name + "-progress", progress::run);
            fence = DatabaseFence.start(name, config.database().jdbcUrl(), dataSource, supervisor);
            log.connect();
            catchUp.run();
            bootstrap.alignSequences(dataSource);
            if (shipping != null) {
                new OtherSiteFollower(name, config, logPatience).follow(shipping);
            }
            supervisor.start(name + "-join", membership::run);
            joinControlGroup();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private ReadConnections openReads(AdHocReads adHocReads) {
        reads = new ReadConnections(name, config.database().jdbcUrl(), config.roles(), adHocReads.maxResultBytes());
        return reads;
    }

    /** The apply loop, on its connections, started before the log: it replays at once. */
    private void startApplier(NodeBootstrap.Prepared prepared, Certification certification) throws SQLException {
        applierConnection = dataSource.getConnection();
        List<Connection> parallelConnections = new ArrayList<>();
        if (config.appliesInParallel()) {
            for (int i = 0; i < config.apply().appliers(); i++) {
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
                        : new ApplyLoop.ParallelAppliers(parallelConnections, prepared.primaryKeys(), config.si()),
                config.apply().applyGroup());
        supervisor.start(name + "-applier", applier::run);
    }

    /** The write-set log (not yet connected), delivering to the applier; with a log per site, the shipping. */
    private void openLog() throws Exception {
        log = new WriteSetLog(
                name,
                config.writeSetCluster(),
                Channels.writeSetLog(
                        config.writeSetGroup(), name, config.raftSettings(), config.siteName(), config.writeSetLinks()),
                new LogStateMachine(
                        name,
                        applier::deliver,
                        () -> log.firstIndex(),
                        applier::persistedIndex,
                        applier::awaitHandled,
                        applier::startsFromSnapshot,
                        activeScheduler,
                        applier::mustBeRebuilt,
                        applier.shipped(),
                        applier.metWriteSets()),
                logPatience);
        if (config.siteLog()) {
            shipping = new SiteShipping(name, log, log::isLeader, applier.shipped());
            progress.logPositionFrom(applier.shipped()::ownPosition);
        }
        catchUp = new LogCatchUp(name, applier, log, supervisor, closed::get, waitReports);
    }

    /** The K workers, each on its own connection with write-set capture enabled, started. */
    private void startWorkers(
            ClassifierRules rules, AdHocReads adHocReads, NodeBootstrap.Prepared prepared, Certification certification)
            throws SQLException {
        long incarnation = new SecureRandom().nextLong();
        ExecutionContext context = new ExecutionContext(
                name,
                config.isolation(),
                ArgumentTypes.from(rules),
                visibility,
                log,
                new CommitOrder(log, incarnation, prepared.commitOrderDrawn()),
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
                        rules,
                        new Increments(prepared.primaryKeys().all()),
                        config.usesIncrements(),
                        config.incrementProbe()),
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
    }

    /** Receives the control group's messages ({@link ControlMessages}), joins the group, announces itself. */
    private void joinControlGroup() throws Exception {
        UnloggedDecisions unlogged = new UnloggedDecisions(
                new PatientAppend(name, log, waitReports), log, supervisor, membership::serving, closed::get);
        supervisor.start(name + "-unlogged-decisions", unlogged::run);
        control.setReceiver(new ControlMessages(
                        name,
                        config.siteName(),
                        supervisor,
                        activeScheduler,
                        workers,
                        visibility,
                        own,
                        agreements,
                        progress,
                        log,
                        membership,
                        unlogged,
                        this::sendControl,
                        closed::get)
                .endpoint());
        control.connect(config.controlCluster());
        membership.announce(control.getView());
    }

    public String describe() {
        return name + " (" + config.workers() + " workers, mode " + config.mode() + ", isolation " + config.isolation()
                + ") on " + Secrets.maskUrl(config.database().jdbcUrl());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return; // idempotent: the statistics are written once
        }
        if (progress != null) {
            progress.flush(); // the last reports go now, not at an interval the channel no longer sees
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
            try {
                applierConnection.close();
            } catch (SQLException ignored) {
                // Closing anyway.
            }
        }
        if (fence != null) {
            fence.close();
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
        membership.announce(view);
    }
}
