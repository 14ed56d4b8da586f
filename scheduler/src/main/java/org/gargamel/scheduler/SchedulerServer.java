package org.gargamel.scheduler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Agreement;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.NodeRefused;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.common.wire.Settlement;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.common.wire.Superseded;
import org.gargamel.common.wire.TakeOver;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.common.wire.VisibilityQuery;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.Agreements;
import org.gargamel.scheduler.sites.Decision;
import org.gargamel.scheduler.sites.LogOrderAgreement;
import org.gargamel.scheduler.sites.OwnedAgreement;
import org.gargamel.scheduler.sites.PlacedByOwners;
import org.gargamel.scheduler.sites.ScheduleLog;
import org.gargamel.scheduler.sites.SiteScheduler;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler process (DESIGN.md §4): one event loop owns the {@link Scheduler} (graph, conflict index, workers);
 * JGroups receive threads only decode messages and enqueue them (through a {@link MessageEndpoint}). Calls come from
 * clients (SUBMIT_CALL) and go to nodes (EXECUTE); nodes announce themselves (NODE_HELLO) and report what became
 * visible (PROGRESS); clients ask how much is still in flight (DRAIN_QUERY). A node that leaves the view has its
 * unreported calls settled by the survivors in the write-set log (ABANDON, then SETTLEMENT): those that stand are
 * answered from their write-sets, the others run again on the survivors (thesis Alg 4); its read-only calls run again
 * at once. Only when no node is left is a call's outcome unknown.
 *
 * <p>The loop is a supervised thread: an unexpected exception in an event is a bug that leaves the graph in an unknown
 * state, so it is fatal, never printed and carried on. It is logged at ERROR naming the event (the message, its
 * source, the call and the transaction), the loop stops, and {@link #failure()} completes; the owner then closes the
 * server and exits non-zero. Expected refusals (a bad call, overload, a node's inconsistent announcement) are not
 * failures: they are answered or logged and the loop goes on.
 */
public final class SchedulerServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);
    static final String LOOP_THREAD = "scheduler-loop";
    private static final int BATCH = 256;
    /** Events waiting for the loop. A full queue rejects new calls at once and makes nodes' reports wait. */
    private static final int QUEUE_CAPACITY = 1 << 16;
    /** How long an idle loop waits before it looks whether it should stop. */
    private static final long IDLE_POLL_MILLIS = 100;
    /** How long {@link #close()} waits for the loop to end. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);
    /** How long one change of the schedule log's membership may take before it is tried again. */
    private static final Duration MEMBERSHIP_ATTEMPT = Duration.ofSeconds(10);
    /** In {@code site.logDir}: the Raft id of the member whose log is there (docs/multisite.md). */
    static final String MEMBER_FILE = "member";

    private final SchedulerConfig config;
    private final Scheduler scheduler;
    /**
     * Multi-site (docs/multisite.md): this site's scheduling, the core {@link #scheduler} with the agreement on the
     * schedule log; null in a single-site cluster.
     */
    private final SiteScheduler site;
    /**
     * This site's end of the schedule log (site schedulers only): made and connected on the {@link #appender} once the
     * write-set log made this scheduler active ({@link #connectScheduleLog}); null until then.
     */
    private volatile ScheduleLog scheduleLog;
    /**
     * Appends to the schedule log off the loop, one at a time in the order placed (an append waits while the log has
     * no leader; a site's entries keep their order, though the agreement would also take them out of order).
     */
    private ExecutorService appender;
    /**
     * Site schedulers: the update calls in the agreement (this site's, and other sites' read from the log) with the
     * nodes of this site that made each visible, until all of them have; then the agreement forgets the call. Other
     * sites' calls a node reports before this scheduler read them from the log wait in {@link #reportedEarly}.
     */
    private final Map<Long, Set<String>> visibleAt = new HashMap<>();

    private final Map<Long, Set<String>> reportedEarly = new HashMap<>();
    /**
     * Site schedulers: calls read from the log before this scheduler's own first entry came back, to ask the nodes
     * about: they may have reported them to an earlier scheduler of the site ({@link #askVisibility}).
     */
    private final Set<Long> visibilityToAsk = new java.util.LinkedHashSet<>();
    /** Whether this scheduler's first own entry came back from the log: no later entry was reported elsewhere. */
    private boolean caughtUp;

    /**
     * Site schedulers: this site's calls placed by an earlier scheduler of the site, read from the log, to settle
     * ({@link #settleOrphans}), with when they were read.
     */
    private final Map<Long, Orphan> orphans = new java.util.LinkedHashMap<>();

    /** An orphan: when it was read, and its agreed back-dependencies (settled before it). */
    @SuppressWarnings("ArrayRecordComponent") // read, never written
    private record Orphan(long readAt, long[] dependencies) {}
    /** How long an orphan waits for its nodes' answers to the visibility query before it is settled. */
    private static final Duration ORPHAN_GRACE = Duration.ofMillis(500);

    /**
     * Site-owned classes: this site's placements of other sites' calls, held while this scheduler has not read the log
     * as far as it stood when it took over (docs/multisite.md, Site-owned conflict classes). It reads the log from the
     * start, and an earlier scheduler of the site may have placed those calls already: their placements come later in
     * the log, so a placement is decided only once this scheduler's first one comes back. None is appended before the
     * take-over is done either: only then are all of an earlier scheduler's write-sets in the write-set log, which the
     * call's barrier must cover.
     */
    private final List<SchedulePlacement> placementsHeld = new ArrayList<>();
    /** The placement sent first, to learn when the log is read past the take-over; null before, and once back. */
    private SchedulePlacement firstPlacement;

    private boolean placementsCaughtUp;

    /**
     * A site's updates whose node left before they were settled and before the schedule log placed them: they are
     * settled as orphans once it does ({@link #settleAsAnOrphan}).
     */
    private final Set<Long> lostBeforeAgreed = new HashSet<>();

    private final GroupConfig group;
    private final Supervisor supervisor = new Supervisor("scheduler");
    private final MessageEndpoint endpoint;
    private final BlockingQueue<Event> events = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final Map<Long, PendingCall> pending = new HashMap<>();
    /** Update calls of departed nodes waiting for the survivors' settlement, by transaction. */
    private final Map<Long, PendingCall> unsettled = new HashMap<>();
    /**
     * The calls in flight here (in {@link #pending} or {@link #unsettled}) by client and call id, with their transaction.
     * A client sends a call again to a scheduler that left its view and came back (a partition's merge); a copy of a
     * call still in flight here is not placed beside it: both could run before either is in the log, where the nodes'
     * memory of answered calls would catch the second (docs/protocol.md, Scheduler failover).
     */
    private final Map<CallRef, Long> inFlightCalls = new HashMap<>();

    private record CallRef(Address client, long callId) {}

    private final AtomicLong ignoredCopies = new AtomicLong();

    private final Map<String, Address> nodes = new HashMap<>();
    private final AtomicLong scheduled = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong ranAgain = new AtomicLong();
    private final AtomicLong answeredFromLog = new AtomicLong();
    /** What every node must share with this scheduler; its schema digest is unused (no database here). */
    private final ClusterProfile profile;
    /**
     * The schema digest and replica list every node must have: the first accepted node's profile, kept for this
     * scheduler's life, and which node that was (the scheduler has no database and no replica list to compare with).
     */
    private ClusterProfile reference;

    private String referenceOwner;
    /**
     * Scheduler failover (docs/protocol.md): whether the write-set log made this scheduler the active one, and its
     * epoch (the high half of its transaction ids). Until then calls are held, not placed. Written on the event loop,
     * read by {@link #epoch()} from any thread: volatile.
     */
    private volatile boolean active;

    private volatile long epoch;
    /**
     * Calls received while no node can take them (this scheduler is not active yet, or no node serves yet: a take-over
     * or a start under way), with when each came; placed once a node serves, rejected after {@link #HOLD_LIMIT}.
     */
    private final List<Held> held = new ArrayList<>();

    private record Held(Submitted submitted, long since) {}

    /**
     * How long a call waits for a serving node before it is rejected. A take-over must fit in it: the nodes rejoin the
     * new scheduler only once they have finished the old one's calls, which took 9 s on a loaded 2-core machine
     * (SchedulerPartitionIT failed with 5 s), and the client's own call timeout is 60 s by default.
     */
    private static final Duration HOLD_LIMIT = Duration.ofSeconds(15);
    /** The nodes that applied this scheduler's claim (they may have calls of an earlier scheduler to finish). */
    private final Map<Address, String> granters = new HashMap<>();
    /** Whether every granter still in the view has said hello: joining nodes' drain queries wait until then. */
    private boolean takeOverDone;
    /** The older scheduler this one stands by for (logged once per scheduler). */
    private Address standingByFor;
    /** How often {@link #explainBusy} may log while drain queries keep seeing work. */
    private static final Duration BUSY_REPORT = Duration.ofSeconds(10);

    private static final int BUSY_EXAMPLES = 8;
    /** When drain queries began to see work without a zero answer since (0: the last answer was 0); loop only. */
    private long busySince;

    private long busyReported;
    /** When the last drain query was answered. */
    private long lastDrain;
    /** Drain queries of joining nodes held until {@link #takeOverDone}. */
    private final List<Drain> heldDrains = new ArrayList<>();

    private final AtomicLong refusedNodes = new AtomicLong();
    private JChannel channel;
    /** The latest view, as seen by the loop: a NODE_HELLO from outside it is stale and ignored. */
    private volatile View view;
    /** The transaction the running event is about (0: none yet), for the fatal log line; loop thread only. */
    private long eventTxn;

    private Thread loop;
    private volatile boolean running;

    /**
     * A call placed on a node and not yet reported by it: who to tell, and what to place again (with its session's
     * transaction) if the node leaves. {@code agreed}: a site's call's agreed back-dependencies once the schedule log
     * placed it (null before, and for a single site): what settling it needs if every node of the site is lost.
     */
    private record PendingCall(
            Address client,
            long callId,
            String node,
            ProcedureCall call,
            long after,
            Placement placed,
            @SuppressWarnings("ArrayRecordComponent") long[] agreed) {
        PendingCall(Address client, long callId, String node, ProcedureCall call, long after, Placement placed) {
            this(client, callId, node, call, after, placed, null);
        }

        PendingCall withAgreed(long[] dependencies) {
            return new PendingCall(client, callId, node, call, after, placed, dependencies);
        }

        /** Its placement once the log placed it for good, after {@code dependencies}, on the worker it was given. */
        Placement dispatched(long[] dependencies) {
            return new Placement(placed.txn(), placed.worker(), dependencies, placed.readOnly());
        }
    }

    /** One unit of the loop's work, one object per received message; named in the log line if it fails. */
    private interface Event {
        void run(SchedulerServer server);

        String describe();
    }

    private record Submitted(Address client, SubmitCall submit) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onSubmit(client, submit);
        }

        @Override
        public String describe() {
            return submit.describe() + " from " + client;
        }
    }

    /** An owner's placement the schedule log committed (site schedulers with site-owned classes). */
    private record PlacementLogged(SchedulePlacement placement) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onPlacementLogged(placement);
        }

        @Override
        public String describe() {
            return placement.describe();
        }
    }

    /** An entry the schedule log committed (site schedulers). */
    private record Logged(ScheduleCall entry) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onLogged(entry);
        }

        @Override
        public String describe() {
            return entry.describe();
        }
    }

    private record Granted(Address source, EpochGranted grant) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onGranted(source, grant);
        }

        @Override
        public String describe() {
            return grant.describe() + " from " + source;
        }
    }

    private record SupersededNotice(Address source, Superseded notice) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onSuperseded(source, notice);
        }

        @Override
        public String describe() {
            return notice.describe() + " from " + source;
        }
    }

    private record Hello(Address source, NodeHello hello) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onHello(source, hello);
        }

        @Override
        public String describe() {
            return hello.describe() + " from " + source;
        }
    }

    private record Reported(Address source, Progress progress) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onProgress(progress);
        }

        @Override
        public String describe() {
            return progress.describe() + " (" + source + ")";
        }
    }

    private record Settled(Address source, Settlement settlement) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onSettlement(settlement);
        }

        @Override
        public String describe() {
            return settlement.describe() + " (" + source + ")";
        }
    }

    private record Drain(Address source, DrainQuery query) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onDrain(source, query);
        }

        @Override
        public String describe() {
            return query.describe() + " from " + source;
        }
    }

    private record ViewChange(View view) implements Event {
        @Override
        public void run(SchedulerServer server) {
            server.onView(view);
        }

        @Override
        public String describe() {
            return "view " + view;
        }
    }

    /** Work handed to the loop by a test ({@link #runOnLoop}). */
    private record Task(String name, Runnable task) implements Event {
        @Override
        public void run(SchedulerServer server) {
            task.run();
        }

        @Override
        public String describe() {
            return name;
        }
    }

    /**
     * A write-set log per site: the highest position in it this site's nodes reported (0 otherwise, and before the
     * first report). Read by the loop only.
     */
    private long siteLogPosition;

    /** This site's number in its transaction ids (0 for a single site). */
    private final int siteNumber;

    public SchedulerServer(SchedulerConfig config) {
        this.config = config.validate();
        ClassifierRules rules = config.loadRules();
        this.scheduler = new Scheduler(rules, config.mode(), config.isolation());
        this.site = config.site() == null ? null : new SiteScheduler(scheduler, Agreements.of(config.site()), rules);
        if (site != null) {
            site.logPositionFrom(() -> siteLogPosition);
            site.epochFrom(() -> epoch);
        }
        this.siteNumber = config.site() == null ? 0 : config.site().number();
        this.profile = new ClusterProfile(config.mode(), config.isolation(), rules.digest(), "");
        this.group = config.controlGroup();
        this.endpoint = new MessageEndpoint("scheduler", supervisor::fail)
                .on(SubmitCall.class, MessageType.SUBMIT_CALL, this::received)
                .on(NodeHello.class, MessageType.NODE_HELLO, (source, hello) -> enqueue(new Hello(source, hello)))
                .on(
                        EpochGranted.class,
                        MessageType.EPOCH_GRANTED,
                        (source, grant) -> enqueue(new Granted(source, grant)))
                .on(
                        Superseded.class,
                        MessageType.SUPERSEDED,
                        (source, notice) -> enqueue(new SupersededNotice(source, notice)))
                // Its own TAKE_OVER comes back to it (a multicast): nothing to do.
                .on(TakeOver.class, MessageType.TAKE_OVER, (source, takeOver) -> {})
                .on(Progress.class, MessageType.PROGRESS, (source, progress) -> enqueue(new Reported(source, progress)))
                .on(DrainQuery.class, MessageType.DRAIN_QUERY, (source, query) -> enqueue(new Drain(source, query)))
                .on(
                        Settlement.class,
                        MessageType.SETTLEMENT,
                        (source, settled) -> enqueue(new Settled(source, settled)))
                .onView(view -> enqueue(new ViewChange(view)));
    }

    public void start() throws Exception {
        start(channel -> {});
    }

    /**
     * Starts the loop and joins the control group; {@code beforeConnect} may change the channel first (tests insert
     * JGroups fault-injection protocols such as DISCARD and DELAY).
     */
    public void start(Consumer<JChannel> beforeConnect) throws Exception {
        running = true;
        loop = supervisor.start(LOOP_THREAD, this::runLoop);
        if (site != null) {
            appender = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "schedule-log-appender");
                thread.setDaemon(true);
                return thread;
            });
            // The schedule log is joined only once the write-set log made this scheduler its site's active one
            // (onGranted): a standby must not stand in it beside the active one as the site's member.
        }
        channel = Channels.schedulerControl(group, GargamelClient.SCHEDULER_NAME);
        channel.setReceiver(endpoint);
        beforeConnect.accept(channel);
        channel.connect(config.controlCluster()); // the first view claims, unless an older scheduler is here
    }

    /**
     * Asks the nodes to make this scheduler the active one: each appends a claim to the write-set log, and the first
     * copy the log commits decides (docs/protocol.md, Scheduler failover). Sent again at every view change until a
     * node answers, since nodes may join later.
     */
    private void claim() {
        try {
            channel.send(new org.jgroups.BytesMessage(null, WireCodec.encode(new TakeOver())));
        } catch (Exception e) {
            if (running) {
                LOG.warn("cannot ask the nodes to make this scheduler active: {}", e.toString());
            }
        }
    }

    /**
     * Whether this scheduler stands by: another scheduler joined the group before it and is still there (every
     * member takes the oldest one for the active scheduler). It takes over when those before it are gone.
     */
    public boolean standingBy() {
        View current = view;
        return current != null && !channel.getAddress().equals(GargamelClient.activeScheduler(current));
    }

    /** Whether the write-set log made this scheduler the active one, and its epoch (0 until then). */
    public long epoch() {
        return active ? epoch : 0;
    }

    /** The scheduler's address in the control group (after {@link #start}). */
    public Address address() {
        return channel.getAddress();
    }

    public String describe() {
        return "scheduler " + channel.getAddress() + " at " + config.control().bind() + " (mode " + config.mode()
                + ", isolation " + config.isolation() + ")";
    }

    /**
     * Completes with the reason when the scheduler cannot go on: an event of the loop threw (the ERROR log line and the
     * reason name the event, the call and the transaction), the loop thread died, or a message handler threw. The loop
     * processes nothing more, new calls are rejected; the owner should {@link #close()} and exit non-zero. Never
     * completes otherwise, not on {@link #close()}.
     */
    public CompletableFuture<Throwable> failure() {
        return supervisor.failure();
    }

    /** Calls scheduled so far, rejected so far, and malformed messages dropped (for the log and tests). */
    /** Copies of calls in flight here that a client sent again, not placed twice. */
    public long ignoredCopyCount() {
        return ignoredCopies.get();
    }

    public long scheduledCount() {
        return scheduled.get();
    }

    public long rejectedCount() {
        return rejected.get();
    }

    /** This site scheduler's Raft id in the schedule log, once it joined it (docs/multisite.md). */
    public Optional<String> scheduleLogMember() {
        ScheduleLog joined = scheduleLog;
        return joined == null ? Optional.empty() : Optional.of(joined.member());
    }

    /** The schedule log's members as this site scheduler knows them; empty before it joined. */
    public List<String> scheduleLogMembers() {
        ScheduleLog joined = scheduleLog;
        return joined == null ? List.of() : joined.members();
    }

    /** A site scheduler's counters with site-owned classes, read on the loop; empty otherwise. */
    public Optional<OwnedAgreement.Counters> ownedCounters() throws InterruptedException, TimeoutException {
        if (site == null || !(site.agreement() instanceof PlacedByOwners owners)) {
            return Optional.empty();
        }
        return Optional.of(
                readOnLoop("the owned classes' counters", () -> (OwnedAgreement.Counters) owners.counters()));
    }

    /**
     * A site scheduler's agreement counters (calls placed and agreed, collisions, restacks, copies and early entries
     * of the schedule log), read on the loop; empty for a single-site scheduler and with site-owned classes.
     */
    public Optional<LogOrderAgreement.Counters> agreementCounters() throws InterruptedException, TimeoutException {
        if (site == null || !(site.agreement() instanceof LogOrderAgreement agreement)) {
            return Optional.empty();
        }
        return Optional.of(readOnLoop("the agreement's counters", agreement::counters));
    }

    /** Reads {@code what} on the event loop, which owns the site's scheduling (tests, logs). */
    private <T> T readOnLoop(String what, java.util.function.Supplier<T> read)
            throws InterruptedException, TimeoutException {
        CompletableFuture<T> result = new CompletableFuture<>();
        enqueue(new Task("read " + what, () -> result.complete(read.get())));
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("reading " + what + " failed", e.getCause());
        }
    }

    /** Calls of departed nodes run again on the survivors (abandoned in the log, or read-only). */
    public long ranAgainCount() {
        return ranAgain.get();
    }

    /** Calls of departed nodes answered from their write-sets in the log (they stand). */
    public long answeredFromLogCount() {
        return answeredFromLog.get();
    }

    /** NODE_HELLOs refused because the node's configuration differs from the cluster's. */
    public long refusedNodeCount() {
        return refusedNodes.get();
    }

    public long malformedCount() {
        return endpoint.malformedCount();
    }

    /** Well-formed messages of a type the scheduler does not handle (e.g. an EXECUTE sent to it), dropped. */
    public long unexpectedCount() {
        return endpoint.unexpectedCount();
    }

    /** Leaves the group and stops the loop, waiting for it up to {@link #STOP_GRACE}. Idempotent. */
    @Override
    public void close() {
        running = false;
        if (channel != null) {
            channel.close();
        }
        if (appender != null) {
            appender.shutdownNow();
        }
        ScheduleLog joined = scheduleLog;
        if (joined != null) {
            joined.close();
        }
        supervisor.stop(STOP_GRACE);
    }

    /** Tests: runs {@code task} on the loop as an event named {@code name}, after the events already queued. */
    void runOnLoop(String name, Runnable task) {
        enqueue(new Task(name, task));
    }

    /** Tests: whether the loop thread is still alive. */
    boolean loopAlive() {
        return loop != null && loop.isAlive();
    }

    /** The loop's body: ends when stopping (interrupted), when the scheduler failed, or by throwing (fatal). */
    private void runLoop() throws InterruptedException {
        List<Event> batch = new ArrayList<>(BATCH);
        CompletableFuture<Throwable> failure = supervisor.failure();
        while (!supervisor.stopping() && !failure.isDone()) {
            Event first = events.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
            if (!held.isEmpty()) {
                releaseHeld();
            }
            if (site != null) {
                askVisibility();
                settleOrphans();
                reportStalledPlacements();
            }
            if (first == null) {
                continue;
            }
            batch.add(first);
            events.drainTo(batch, BATCH - 1);
            for (int i = 0, n = batch.size(); i < n; i++) {
                Event event = batch.get(i);
                eventTxn = 0;
                try {
                    event.run(this);
                } catch (SupersededException e) {
                    throw e; // not a fault of the event: its message says it all
                } catch (RuntimeException | Error e) {
                    throw new FatalException(
                            LOOP_THREAD + ": " + event.describe()
                                    + (eventTxn > 0 ? " (transaction " + eventTxn + ")" : "") + " failed: " + e,
                            e);
                }
            }
            batch.clear();
        }
    }

    // ---- on JGroups' receive threads ----

    /** A new call: queued, or rejected at once when the queue is full or the scheduler has failed. */
    private void received(Address client, SubmitCall submit) {
        if (supervisor.failure().isDone()
                && SupersededException.isCause(supervisor.failure().getNow(null))) {
            return; // not for this scheduler any more: the client resubmits the call to the active one
        } else if (supervisor.failure().isDone()) {
            reject(
                    client,
                    submit.callId(),
                    "the scheduler has failed (see its log) and is stopping; "
                            + submit.call().procedure() + " was not scheduled");
        } else if (!events.offer(new Submitted(client, submit))) {
            reject(
                    client,
                    submit.callId(),
                    "overloaded: the scheduler's event queue is full (" + QUEUE_CAPACITY + " events); retry later");
        }
    }

    /**
     * Reports and views are never dropped while the scheduler runs: a full queue makes the sender's receive thread wait
     * (JGroups' flow control then slows the senders down). Once it is closed or has failed, they are dropped.
     */
    private void enqueue(Event event) {
        try {
            while (!events.offer(event, IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                if (!running || supervisor.failure().isDone()) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- events, all on the loop thread ----

    private void onSubmit(Address client, SubmitCall submit) {
        if (inFlightCalls.containsKey(new CallRef(client, submit.callId()))) {
            ignoredCopies.incrementAndGet();
            LOG.info(
                    "call {} of {} came again while its first copy is in flight here (transaction {}): not placed "
                            + "twice; the first one answers it",
                    submit.callId(),
                    client,
                    inFlightCalls.get(new CallRef(client, submit.callId())));
            return;
        }
        if (!active || scheduler.nodeCount() == 0) {
            held.add(new Held(new Submitted(client, submit), System.nanoTime())); // until a node serves
            return;
        }
        if (scheduler.inFlight() >= config.maxInFlight()) {
            reject(
                    client,
                    submit.callId(),
                    "overloaded: " + scheduler.inFlight() + " transactions in flight (maxInFlight "
                            + config.maxInFlight() + "); retry later");
            return;
        }
        place(client, submit.callId(), submit.call(), submit.after());
    }

    /** Places a call and sends it to its node; a call the scheduler refuses is rejected to its client. */
    private void place(Address client, long callId, ProcedureCall call, long after) {
        Placement placement;
        SiteScheduler.HomeCall home = null;
        try {
            if (site != null) {
                home = site.place(call, after);
                placement = home.placement();
            } else {
                placement = scheduler.place(call, after);
            }
        } catch (RejectedCallException e) {
            inFlightCalls.remove(new CallRef(client, callId)); // placed again after a node left, and refused now
            reject(client, callId, e.getMessage());
            return;
        }
        eventTxn = placement.txn();
        String node = placement.worker().node();
        Address target = nodes.get(node);
        if (target == null) {
            // A null target would multicast the EXECUTE to every member: every node would run the call.
            throw new IllegalStateException("placed on " + node + ", which has no address in the control group (known: "
                    + nodes.keySet() + ")");
        }
        PendingCall placed = new PendingCall(client, callId, node, call, after, placement);
        if (home != null && home.dispatchNow() && !home.provisional() && !placement.readOnly()) {
            // Site-owned classes: a local call is placed for good now; settled after these if its node is lost.
            placed = placed.withAgreed(placement.backDependencies());
        }
        pending.put(placement.txn(), placed);
        inFlightCalls.put(new CallRef(client, callId), placement.txn());
        scheduled.incrementAndGet();
        if (home == null || home.dispatchNow()) {
            send(target, execute(placement, client, callId, call, home != null && home.provisional(), false, Map.of()));
        }
        if (home != null && !home.toLog().isEmpty()) {
            visibleAt.put(placement.txn(), new HashSet<>());
            for (Message entry : home.toLog()) {
                appendToScheduleLog(entry); // its entry; abort-free, then this site's placement of it as it came
            }
        } else if (home != null && site.knows(placement.txn())) {
            visibleAt.put(placement.txn(), new HashSet<>()); // site-owned classes: a local call, forgotten once visible
        }
    }

    /**
     * The {@code EXECUTE} of a placed call ({@code provisional}: it commits only on its {@code AGREEMENT};
     * {@code barrier}: a spanning call of site-owned classes).
     */
    private static Execute execute(
            Placement placement,
            Address client,
            long callId,
            ProcedureCall call,
            boolean provisional,
            boolean barrier,
            Map<String, Long> shippedBefore) {
        return new Execute(
                placement.txn(),
                placement.worker().index(),
                placement.readOnly(),
                placement.backDependencies(),
                client,
                callId,
                call,
                provisional,
                barrier,
                shippedBefore);
    }

    /**
     * Joins the schedule log as this site's member, on the appender thread, so that this site's first entries are
     * appended once it is connected. The log's entries are read into the loop from the first one (docs/multisite.md, A
     * site scheduler's failover): a successor learns its predecessor's calls there. Which member it is:
     * {@link #scheduleLogMember}; one that joins as a new member then replaces its site's earlier one.
     */
    private void connectScheduleLog(EpochGranted grant) {
        appender.execute(() -> {
            try {
                String member = scheduleLogMember(grant);
                RaftSettings raft = config.site().raft(member);
                ScheduleLog log = new ScheduleLog(
                        config.site().name(),
                        member,
                        Channels.scheduleLog(
                                config.scheduleGroup(),
                                config.site().name(),
                                raft,
                                config.site().links()),
                        entry -> enqueue(new Logged(entry)),
                        site.agreement() instanceof PlacedByOwners
                                ? placement -> enqueue(new PlacementLogged(placement))
                                : null,
                        RaftLog.Patience.DEFAULT);
                scheduleLog = log;
                if (!running) {
                    log.close();
                    return;
                }
                log.connect();
                LOG.info("joined the schedule log as {}", member);
                if (raft.joining()) {
                    Thread replacing = new Thread(
                            () -> {
                                try {
                                    log.replacePredecessors(MEMBERSHIP_ATTEMPT, () -> running);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            "schedule-log-membership");
                    replacing.setDaemon(true);
                    replacing.start();
                }
            } catch (Exception e) {
                if (running) {
                    supervisor.fail(new FatalException("cannot join the schedule log: " + e.getMessage(), e));
                }
            }
        });
    }

    /**
     * This scheduler's Raft id in the schedule log. Raft counts on a member never forgetting its log, term and vote, so
     * a scheduler that comes back without its site's copy of the log must not come back as the member it was
     * (docs/multisite.md, A site scheduler's failover): with three sites or more, a scheduler that succeeds another
     * without a copy of the log joins as a new member ({@link ScheduleLog#newMember}) and replaces its predecessor.
     * Its site's name otherwise: the first scheduler of the site, one started again on its log ({@code site.logDir}
     * records which member the log there is), and any with two sites (a two-member log cannot change its membership
     * with one member dead; there the other member holds every committed entry, so an empty log loses nothing).
     */
    private String scheduleLogMember(EpochGranted grant) throws IOException {
        String site = config.site().name();
        Path logDir = config.site().logDir();
        Path recorded = logDir == null ? null : logDir.resolve(MEMBER_FILE);
        if (recorded != null && Files.exists(recorded)) {
            String member = Files.readString(recorded).trim();
            if (!ScheduleLog.siteOf(member).equals(site)) {
                throw new IOException(
                        recorded + " says the log there is " + member + "'s, not a member of site " + site);
            }
            return member;
        }
        boolean holdsALog = logDir != null && Files.isDirectory(logDir) && hasFiles(logDir);
        String member = config.site().sites().size() >= 3 && grant.succeedsAnother() && !holdsALog
                ? ScheduleLog.newMember(site, epoch)
                : site;
        if (recorded != null) {
            Files.createDirectories(logDir);
            Files.writeString(recorded, member + "\n");
        }
        return member;
    }

    private static boolean hasFiles(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.findAny().isPresent();
        }
    }

    /**
     * Sends a home call to the schedule log. An append that cannot be committed (no majority of the sites within the
     * log's patience) stops this scheduler: a site cut off from the others cannot have its calls placed, and its
     * provisional calls cannot commit (docs/multisite.md).
     */
    private void appendToScheduleLog(Message entry) {
        if (entry instanceof SchedulePlacement placement) {
            appendToScheduleLog(placement);
        } else {
            ScheduleCall call = (ScheduleCall) entry;
            appendToScheduleLog(call, () -> scheduleLog.append(call));
        }
    }

    /** Sends this site's placement of another site's spanning call to the schedule log, as a home call is sent. */
    private void appendToScheduleLog(SchedulePlacement placement) {
        appendToScheduleLog(placement, () -> scheduleLog.append(placement));
    }

    private void appendToScheduleLog(Message entry, java.util.function.Supplier<CompletableFuture<Void>> append) {
        appender.execute(() -> Futures.whenDone(append.get(), (done, failure) -> {
            if (failure != null && running) {
                supervisor.fail(new FatalException(
                        "the schedule log did not take " + entry.describe() + ": " + failure.getMessage(), failure));
            }
        }));
    }

    /**
     * An entry the schedule log committed, in log order: tells this site's nodes where their calls were placed (an
     * {@code AGREEMENT} for a provisional call; pessimistic, the {@code EXECUTE}). A call whose node left meanwhile is
     * settled through the write-set log instead (and run again under a new transaction if it had no effect).
     */
    private void onLogged(ScheduleCall entry) {
        eventTxn = entry.txn();
        onLogged(site.read(entry));
    }

    /**
     * What the schedule log's latest entry decided. With site-owned classes also: a placement of another site's call to
     * append, and the dispatch of a spanning call of this site behind its barrier.
     */
    private void onLogged(List<Decision> decisions) {
        for (Decision decision : decisions) {
            eventTxn = decision.txn();
            if (decision instanceof Decision.Place place) {
                SchedulePlacement placement = SiteScheduler.toWire(place.placement());
                if (placementsCaughtUp) {
                    appendToScheduleLog(placement);
                } else {
                    placementsHeld.add(placement);
                    sendFirstPlacement();
                }
                continue;
            }
            if (decision instanceof Decision.Remote || decision instanceof Decision.Orphaned) {
                // Placed by another site or an earlier scheduler of this one: followed until visible at every node.
                Set<String> early = reportedEarly.remove(decision.txn());
                visibleAt.put(decision.txn(), early == null ? new HashSet<>() : early);
                if (!caughtUp) {
                    visibilityToAsk.add(decision.txn());
                }
                if (decision instanceof Decision.Orphaned orphan) {
                    orphans.putIfAbsent(orphan.txn(), new Orphan(System.nanoTime(), orphan.dependencies()));
                }
                forgetIfVisibleHere(decision.txn());
                continue;
            }
            caughtUp = true; // one of this scheduler's own calls: every later entry was committed while it served
            long[] agreedDependencies = decision instanceof Decision.Agreed agreement
                    ? agreement.dependencies()
                    : decision instanceof Decision.Dispatch dispatch ? dispatch.dependencies() : null;
            if (agreedDependencies != null) {
                pending.computeIfPresent(decision.txn(), (txn, call) -> call.withAgreed(agreedDependencies));
                unsettled.computeIfPresent(decision.txn(), (txn, call) -> call.withAgreed(agreedDependencies));
                if (lostBeforeAgreed.remove(decision.txn())) {
                    settleAsAnOrphan(decision.txn(), agreedDependencies);
                }
            }
            PendingCall call = pending.get(decision.txn());
            Address target = call == null ? null : nodes.get(call.node());
            if (target != null && decision instanceof Decision.Agreed agreed) {
                send(target, new Agreement(agreed.txn(), agreed.collided(), agreed.dependencies()));
            } else if (target != null && decision instanceof Decision.Dispatch dispatch) {
                send(
                        target,
                        execute(
                                call.dispatched(dispatch.dependencies()),
                                call.client(),
                                call.callId(),
                                call.call(),
                                false,
                                dispatch.barrier(),
                                dispatch.shippedBefore()));
            }
            forgetIfVisibleHere(decision.txn());
        }
    }

    /**
     * Site-owned classes: an owner's placement the log committed. One of this site's by an earlier scheduler of the
     * site names that scheduler's calls; those no node of the site ran never will (dropped at the take-over, or held at
     * the scheduler that died), and the placed call would wait for them for ever: each is settled as an orphan is, once
     * the nodes have said which they made visible (docs/multisite.md, Site-owned conflict classes).
     */
    private void onPlacementLogged(SchedulePlacement placement) {
        eventTxn = placement.txn();
        if (placement.equals(firstPlacement)) {
            firstPlacement = null;
            placementsCaughtUp = true; // everything before it is read: the log's placements of this site are known
            appendPlacementsHeld();
        }
        if (placement.owner().equals(config.site().name()) && site.agreement() instanceof OwnedAgreement owned) {
            for (long named : placement.dependencies()) {
                if (!handedOutHere(named)
                        && !owned.isSpanning(named)
                        && !orphans.containsKey(named)
                        && !visibleAt.containsKey(named)) {
                    // Not another site's call (those are spanning calls read from the log) and not this scheduler's:
                    // an earlier scheduler's call on this site's rows. Forgotten already means visible everywhere here,
                    // which the visibility query will say.
                    visibleAt.put(named, new HashSet<>());
                    visibilityToAsk.add(named);
                    orphans.put(named, new Orphan(System.nanoTime(), new long[0]));
                }
            }
        }
        onLogged(site.read(placement));
    }

    /**
     * Once the take-over is done, sends the first placement held: when it comes back, every entry the log held when it
     * was sent has been read.
     */
    private void sendFirstPlacement() {
        if (!takeOverDone || firstPlacement != null || placementsCaughtUp || placementsHeld.isEmpty()) {
            return;
        }
        firstPlacement = placementsHeld.remove(0);
        appendToScheduleLog(firstPlacement);
    }

    /** The placements held, but those the log holds one of this site's of already (an earlier scheduler's). */
    private void appendPlacementsHeld() {
        PlacedByOwners owners = (PlacedByOwners) site.agreement();
        int appended = 0;
        for (SchedulePlacement placement : placementsHeld) {
            if (!owners.placedHere(placement.txn())) {
                appendToScheduleLog(placement);
                appended++;
            }
        }
        LOG.info(
                "read the schedule log past the take-over: appended {} placement(s) of other sites' calls held until"
                        + " then ({} already placed by an earlier scheduler of this site)",
                appended,
                placementsHeld.size() - appended);
        placementsHeld.clear();
    }

    /**
     * A site scheduler reads the whole schedule log when it starts, and the nodes reported the calls they made visible
     * to the schedulers of the site before it: until its own first entry comes back (every entry after it was
     * committed once it served), it asks the nodes which of the calls it read are visible there (VISIBILITY_QUERY,
     * answered with a PROGRESS). Without it, those calls would never be forgotten and a drain never ended.
     */
    private void askVisibility() {
        if (visibilityToAsk.isEmpty() || !takeOverDone || nodes.isEmpty()) {
            return;
        }
        long[] asked = visibilityToAsk.stream().mapToLong(Long::longValue).toArray();
        visibilityToAsk.clear();
        for (Address node : nodes.values()) {
            send(node, new VisibilityQuery(asked));
        }
    }

    /**
     * A node joined: it may have made visible, before it joined, calls this scheduler counts as not visible everywhere
     * (a node that restarted, or one that reported them to an earlier scheduler of the site).
     */
    private void askVisibility(String node, Address address) {
        if (site == null) {
            return;
        }
        long[] unknown = visibleAt.entrySet().stream()
                .filter(call -> !call.getValue().contains(node))
                .mapToLong(Map.Entry::getKey)
                .toArray();
        if (unknown.length > 0) {
            send(address, new VisibilityQuery(unknown));
        }
    }

    /**
     * Whether {@code txn}'s write-set (or its settlement) is in the write-set log: a node of this site made it visible,
     * or every one did and the agreement forgot it. An orphan is settled only after its agreed back-dependencies are:
     * every node handles the log's entries in order, so they are visible everywhere before the orphan is, and a call
     * placed after the orphan alone still runs after them.
     */
    private boolean inTheWriteSetLog(long txn) {
        Set<String> by = visibleAt.get(txn);
        return by != null ? !by.isEmpty() : !site.knows(txn);
    }

    /**
     * A call of this site whose node left before it was settled, agreed after {@code agreedDependencies}: settled as an
     * orphan is ({@link #settleOrphans}), once this site has a node and those dependencies are in the write-set log.
     * Without it, when every node of the site had left, the other sites' later calls that conflict with it waited for
     * it for ever (chaos --sites 3, a site's one node killed with updates in flight).
     */
    private void settleAsAnOrphan(long txn, long[] agreedDependencies) {
        visibleAt.putIfAbsent(txn, new HashSet<>());
        orphans.putIfAbsent(txn, new Orphan(System.nanoTime(), agreedDependencies));
    }

    /**
     * A site scheduler's failover (docs/multisite.md): once the take-over is done, the nodes have finished or dropped
     * every call of the earlier epochs (a stalled provisional one was rolled back when the new claim was applied), and
     * the write-sets of those that committed are in the write-set log. So a call of this site that an earlier
     * scheduler placed and the log holds, which no node of the site has said is visible {@link #ORPHAN_GRACE} after it
     * was read (the nodes answer the visibility query meanwhile), goes into an ABANDON once its agreed back-dependencies
     * are in the write-set log ({@link #inTheWriteSetLog}): settled as done with no effect,
     * so that the other sites' calls placed after it do not wait for it for ever, unless the log holds its write-set
     * first (then it stands: a late answer costs nothing but the entry). Its client resubmits it here.
     */
    private void settleOrphans() {
        if (!takeOverDone || orphans.isEmpty() || nodes.isEmpty()) {
            return;
        }
        List<Long> unrun = new ArrayList<>();
        long now = System.nanoTime();
        for (java.util.Iterator<Map.Entry<Long, Orphan>> read =
                        orphans.entrySet().iterator();
                read.hasNext(); ) {
            Map.Entry<Long, Orphan> orphan = read.next();
            if (now - orphan.getValue().readAt() < ORPHAN_GRACE.toNanos()) {
                break; // read in order: the ones after it are younger
            }
            Set<String> by = visibleAt.get(orphan.getKey());
            boolean committed = by == null || !by.isEmpty(); // a node has it, or all have (forgotten): it stands
            if (committed && !unsettled.containsKey(orphan.getKey())) {
                read.remove();
                continue;
            }
            // A departed node's call whose client waits here goes into the ABANDON even if it committed: the
            // survivors' SETTLEMENT is what answers the client (it stood, with its outcome).
            if (committed
                    || Arrays.stream(orphan.getValue().dependencies())
                            .allMatch(dependency -> unrun.contains(dependency) || inTheWriteSetLog(dependency))) {
                read.remove();
                unrun.add(orphan.getKey());
            }
        }
        if (unrun.isEmpty()) {
            return;
        }
        Abandon decision = new Abandon(
                "site " + config.site().name() + " (calls no node of it settled)",
                unrun.stream().mapToLong(Long::longValue).toArray());
        LOG.info(
                "asking {} to settle {} call(s) of this site no node settled, an earlier scheduler's or a departed"
                        + " node's (those that committed stand): {}",
                nodes.keySet(),
                unrun.size(),
                unrun);
        for (Address node : nodes.values()) {
            send(node, decision);
        }
    }

    /**
     * A node of this site made {@code txn} visible. Once every node of the site has, the agreement may forget the call
     * (docs/multisite.md, Forgetting): a later call of this site runs on one of them, and every replica applies the
     * write-sets of conflicting calls in the write-set log's order, row by row.
     */
    private void noteVisible(String node, long txn) {
        Set<String> by = visibleAt.get(txn);
        if (by == null) {
            if (handedOutHere(txn) || site.agreement() instanceof OwnedAgreement) {
                // This site's read-only call, or one already forgotten; with site-owned classes also another site's
                // call this site does not order (a call it orders cannot be visible before this site placed it).
                return;
            }
            by = reportedEarly.computeIfAbsent(txn, id -> new HashSet<>()); // not read from the log yet
        }
        by.add(node);
        forgetIfVisibleHere(txn);
    }

    /**
     * Site schedulers: the other sites' calls read from the schedule log that some node of this site has not made
     * visible yet. A drain waits for them too, so that a client that waits for every site to drain finds every replica
     * of every site up to date (as far as each site has read the log).
     */
    private long otherSitesCallsNotVisibleHere() {
        if (site == null) {
            return 0;
        }
        return visibleAt.keySet().stream().filter(txn -> !handedOutHere(txn)).count();
    }

    /**
     * Whether this scheduler handed out {@code txn}: its epoch and, at a site, its site's number (with a write-set log
     * per site another site's scheduler may have the same epoch).
     */
    private boolean handedOutHere(long txn) {
        return TransactionIds.epochOf(txn) == epoch && (site == null || TransactionIds.siteOf(txn) == siteNumber);
    }

    /** When {@link #reportStalledPlacements} last logged (0: never). */
    private long stallReported;

    private static final Duration STALL_REPORT = Duration.ofSeconds(5);

    /**
     * Site-owned classes and abort-free: every {@link #STALL_REPORT}, names the oldest call of this site that has
     * waited that long for its placements, and what it waits for (an operator's first question when a site stops).
     */
    private void reportStalledPlacements() {
        if (System.nanoTime() - stallReported < STALL_REPORT.toNanos()) {
            return;
        }
        site.agreement().stalled(STALL_REPORT).ifPresent(stall -> {
            stallReported = System.nanoTime();
            LOG.warn("{}", stall);
        });
    }

    private void forgetIfVisibleHere(long txn) {
        Set<String> by = visibleAt.get(txn);
        if (by == null || nodes.isEmpty() || !by.containsAll(nodes.keySet())) {
            return;
        }
        if (site.knows(txn)) {
            visibleAt.remove(txn);
            site.forget(txn);
        } else if (site.agreement() instanceof PlacedByOwners) {
            visibleAt.remove(txn); // an earlier scheduler's call that one of its placements named, settled
        }
    }

    private void onHello(Address source, NodeHello hello) {
        if (view != null && !view.containsMember(source)) {
            // It left after sending: accepting it would place calls on a departed node.
            LOG.debug("ignored a stale {} from {}: not in view {}", hello.describe(), source, view.getViewId());
            return;
        }
        if (hello.workers() < 1) {
            LOG.warn("ignored {} from {}: a node needs at least 1 worker", hello.describe(), source);
            return;
        }
        List<String> differences = profile.differences(hello.profile(), reference, referenceOwner);
        if (!differences.isEmpty()) {
            String reason = "its configuration differs from the cluster's: " + String.join("; ", differences)
                    + " (docs/protocol.md, Membership)";
            LOG.error("refused {}: {}", named(hello.nodeName(), source), reason);
            refusedNodes.incrementAndGet();
            send(source, new NodeRefused(hello.nodeName(), reason));
            return;
        }
        Address previous = nodes.get(hello.nodeName());
        if (previous != null && !previous.equals(source)) {
            LOG.warn("ignored {} from {}: that name belongs to {}", hello.describe(), source, previous);
            return;
        }
        try {
            scheduler.addNode(hello.nodeName(), hello.workers(), hello.ready());
        } catch (IllegalArgumentException | IllegalStateException e) {
            LOG.warn("ignored {} from {}: {}", hello.describe(), source, e.getMessage());
            return;
        }
        nodes.put(hello.nodeName(), source);
        if (previous == null) {
            askVisibility(hello.nodeName(), source);
        }
        if (site != null && nodes.size() == 1) {
            // Reports that came while no node was here (a restarted node reports before its hello) marked calls
            // visible without forgetting them (forgetIfVisibleHere needs a node): the drain waited for them for ever.
            for (long txn : new ArrayList<>(visibleAt.keySet())) {
                forgetIfVisibleHere(txn);
            }
        }
        checkTakeOver();
        if (reference == null) {
            reference = hello.profile();
            referenceOwner = hello.nodeName();
            LOG.info(
                    "the cluster's schema digest is {} (from {}); rules digest {}; replicas {}",
                    reference.schemaDigest(),
                    hello.nodeName(),
                    profile.rulesDigest(),
                    reference.replicas());
        }
        if (previous == null) {
            LOG.info(
                    "{} joined with {} workers ({} node(s) now){}",
                    named(hello.nodeName(), source),
                    hello.workers(),
                    nodes.size(),
                    hello.ready() ? "" : "; it gets calls once it has caught up");
        } else if (hello.ready()) {
            LOG.debug("{} is ready", named(hello.nodeName(), source));
        } else {
            LOG.info(
                    "{} joins again (it lost sight of this scheduler, which still counted it): {} in flight",
                    named(hello.nodeName(), source),
                    scheduler.inFlight());
        }
    }

    private void onProgress(Progress progress) {
        String node = progress.nodeName();
        // A log per site: every call this site forgets stood at or before the highest position its nodes reported.
        siteLogPosition = Math.max(siteLogPosition, progress.logPosition());
        for (long txn : progress.visible()) {
            eventTxn = txn;
            scheduler.reportVisible(node, txn);
            if (site != null) {
                noteVisible(node, txn);
            }
            PendingCall call = pending.get(txn);
            if (call != null && call.node().equals(node)) {
                pending.remove(txn);
                inFlightCalls.remove(new CallRef(call.client(), call.callId()), txn);
            }
        }
    }

    /**
     * Places the held calls once a node serves; rejects those that waited longer than {@link #HOLD_LIMIT}. The calls
     * stay in their arrival order.
     */
    private void releaseHeld() {
        if (active && scheduler.nodeCount() > 0) {
            List<Held> waiting = new ArrayList<>(held);
            held.clear();
            for (Held call : waiting) {
                onSubmit(call.submitted().client(), call.submitted().submit());
            }
            return;
        }
        long now = System.nanoTime();
        while (!held.isEmpty() && now - held.get(0).since() > HOLD_LIMIT.toNanos()) {
            Submitted call = held.remove(0).submitted();
            reject(
                    call.client(),
                    call.submit().callId(),
                    "no node has joined the cluster (or every node has left) within " + HOLD_LIMIT.toSeconds()
                            + " s" + (active ? "" : ", and no node has made this scheduler the active one") + ": no "
                            + "worker to run " + call.submit().call().procedure());
        }
    }

    /**
     * A node applied this scheduler's claim. The first grant makes it active, with the claim's epoch: transaction ids
     * start there, and the calls held meanwhile are placed.
     */
    private void onGranted(Address source, EpochGranted grant) {
        if (!active) {
            active = true;
            epoch = grant.epoch();
            if (site == null) {
                scheduler.startTransactionIdsAt(TransactionIds.firstOf(epoch));
            } else {
                // A site's number in the ids too: with a write-set log per site, two sites may claim the same epoch.
                long first = TransactionIds.firstOf(epoch, siteNumber);
                scheduler.startTransactionIdsAt(first, TransactionIds.lastFrom(first, true));
            }
            LOG.info(
                    "the write-set log made this scheduler the active one: epoch {} (granted by {})",
                    epoch,
                    grant.nodeName());
            if (site != null) {
                connectScheduleLog(grant);
            }
        } else if (grant.epoch() != epoch) {
            LOG.warn("ignored {} from {}: this scheduler's epoch is {}", grant.describe(), source, epoch);
            return;
        }
        if (!takeOverDone && (view == null || view.containsMember(source))) {
            granters.put(source, grant.nodeName());
        }
        checkTakeOver();
    }

    /**
     * A node says the log made another scheduler active after this one (it was cut off, not dead): this one stops
     * without answering its calls, whose clients resubmit them to the active scheduler once this one has left.
     */
    private void onSuperseded(Address source, Superseded notice) {
        if (active && notice.epoch() <= epoch) {
            LOG.warn("ignored {} from {}: this scheduler's epoch is {}", notice.describe(), source, epoch);
            return;
        }
        throw new SupersededException("the write-set log made another scheduler active at epoch " + notice.epoch()
                + " (told by " + notice.nodeName() + "), after this one"
                + (active ? " (epoch " + epoch + ")" : "") + ": it was cut off; it stops and leaves the group");
    }

    /**
     * The take-over is done once the scheduler is active and every node that applied its claim and is still here has
     * said hello (it has finished its calls of the earlier scheduler): the joining nodes' drain queries are answered
     * from then on, so no node serves this epoch before every earlier write-set is in the log.
     */
    private void checkTakeOver() {
        if (takeOverDone || !active) {
            return;
        }
        for (Map.Entry<Address, String> granter : granters.entrySet()) {
            boolean here = view == null || view.containsMember(granter.getKey());
            if (here && !granter.getKey().equals(nodes.get(granter.getValue()))) {
                return;
            }
        }
        // A node whose grant has not come yet may still be finishing calls of the earlier scheduler: every member that
        // is neither a client nor a scheduler counts as a node until it has said hello.
        if (view != null) {
            for (Address member : view.getMembers()) {
                String name = org.jgroups.util.NameCache.get(member);
                boolean other = member.equals(channel.getAddress())
                        || GargamelClient.SCHEDULER_NAME.equals(name)
                        || (name != null && name.startsWith(GargamelClient.CLIENT_NAME_PREFIX));
                if (!other && !nodes.containsValue(member)) {
                    return;
                }
            }
        }
        takeOverDone = true;
        LOG.info("take-over done: {} node(s) here, none still running calls of an earlier scheduler", nodes.size());
        if (site != null) {
            sendFirstPlacement();
            settleOrphans();
        }
        List<Drain> waiting = new ArrayList<>(heldDrains);
        heldDrains.clear();
        for (Drain drain : waiting) {
            onDrain(drain.source(), drain.query());
        }
    }

    private void onDrain(Address source, DrainQuery query) {
        if (!takeOverDone && nodes.containsValue(source)) {
            heldDrains.add(new Drain(source, query)); // a joining node: it waits for the take-over
            return;
        }
        // A departed node's calls waiting for their settlement are still in flight: they will run again.
        long busy = scheduler.inFlight() + unsettled.size() + otherSitesCallsNotVisibleHere();
        send(source, new DrainStatus(query.queryId(), busy, scheduler.nodeCount()));
        explainBusy(busy);
    }

    /**
     * While clients wait for quiescence and work stays in flight, says every {@link #BUSY_REPORT} what it waits for:
     * the oldest transactions in flight, each with its node and the nodes that have not reported it, and the calls of
     * departed nodes still waiting for their settlement. A drain that never ends shows there what is stuck.
     */
    private void explainBusy(long busy) {
        long now = System.nanoTime();
        long previous = lastDrain;
        lastDrain = now;
        if (busy == 0) {
            busySince = 0;
            return;
        }
        if (busySince == 0 || now - previous > BUSY_REPORT.toNanos()) {
            // The first drain to see work, or the first for a while (a node's join long ago): start counting here.
            busySince = now;
            busyReported = now;
            return;
        }
        if (now - busyReported < BUSY_REPORT.toNanos()) {
            return;
        }
        busyReported = now;
        List<String> waiting = new ArrayList<>();
        unsettled.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .limit(BUSY_EXAMPLES)
                .forEach(entry ->
                        waiting.add(entry.getKey() + " of " + entry.getValue().node()));
        LOG.info(
                "still busy {} s after drain queries began to see work: {}; {} call(s) of departed nodes unsettled{};"
                        + " nodes {}",
                (now - busySince) / 1_000_000_000,
                scheduler.describeInFlight(BUSY_EXAMPLES),
                unsettled.size(),
                waiting.isEmpty() ? "" : " " + waiting + (unsettled.size() > BUSY_EXAMPLES ? " ..." : ""),
                nodes.keySet());
        if (site != null) {
            List<String> notVisible = visibleAt.entrySet().stream()
                    .filter(call -> !handedOutHere(call.getKey()))
                    .limit(BUSY_EXAMPLES)
                    .map(call -> call.getKey() + " (visible at " + call.getValue() + ")")
                    .toList();
            LOG.info(
                    "the agreement: {} home call(s) not yet back from the schedule log, {} other sites' call(s) not yet"
                            + " visible at every node here{}, {} reported before their entry was read; {}",
                    site.pending(),
                    otherSitesCallsNotVisibleHere(),
                    notVisible.isEmpty() ? "" : " " + notVisible,
                    reportedEarly.size(),
                    site.counters());
        }
    }

    private void onView(View view) {
        if (view instanceof org.jgroups.MergeView || this.view == null || !sameNodes(this.view, view)) {
            LOG.info("{} {}", view instanceof org.jgroups.MergeView ? "merged view" : "view", view);
        }
        this.view = view;
        if (!active) {
            Address first = GargamelClient.activeScheduler(view);
            if (channel.getAddress().equals(first)) {
                claim(); // the oldest scheduler here: it takes over (again at every view: nodes may have joined since)
            } else if (!first.equals(standingByFor)) {
                LOG.info("standing by: {} is the active scheduler; this one takes over when it is gone", first);
                standingByFor = first;
            }
        }
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, Address> node : nodes.entrySet()) {
            if (!view.containsMember(node.getValue())) {
                gone.add(node.getKey());
            }
        }
        for (String node : gone) {
            Address address = nodes.remove(node);
            List<Placement> lost = scheduler.removeNode(node);
            LOG.info(
                    "{} left the cluster with {} call(s) it had not reported ({} node(s) left)",
                    named(node, address),
                    lost.size(),
                    nodes.size());
            for (Placement placement : lost) {
                eventTxn = placement.txn();
                PendingCall call = pending.remove(placement.txn());
                if (call == null) {
                    continue;
                }
                if (placement.readOnly()) {
                    ranAgain.incrementAndGet();
                    place(call.client(), call.callId(), call.call(), call.after()); // changed nothing anywhere
                } else {
                    unsettled.put(placement.txn(), call);
                }
            }
            abandon(node, site == null ? lost : settledInAgreedOrder(lost));
        }
        if (site != null && !gone.isEmpty()) {
            for (long txn : new ArrayList<>(visibleAt.keySet())) {
                forgetIfVisibleHere(txn); // the nodes left are fewer: some calls are now visible at all of them
            }
        }
        if (nodes.isEmpty() && !unsettled.isEmpty()) {
            LOG.warn("every node has left: the outcomes of {} call(s) are unknown", unsettled.size());
            for (Map.Entry<Long, PendingCall> waiting : unsettled.entrySet()) {
                if (site != null) {
                    // In the agreed order of every site: the other sites' later calls wait for it, so it must be
                    // settled through the write-set log once a node of this site is back (again, if the survivors
                    // it was already sent to left before broadcasting it).
                    settleOnceAgreed(waiting.getKey(), waiting.getValue());
                }
                inFlightCalls.remove(new CallRef(
                        waiting.getValue().client(), waiting.getValue().callId()));
                reject(
                        waiting.getValue().client(),
                        waiting.getValue().callId(),
                        "every node left the cluster before transaction " + waiting.getKey()
                                + " was settled; its outcome is unknown");
            }
            unsettled.clear();
        }
        checkTakeOver();
    }

    /**
     * How the survivors' log settled a departed node's transactions (the first report decides; the others, identical,
     * find nothing left): a call that stands gets the outcome its origin gave, carried by its write-set; an abandoned
     * one had no effect anywhere and runs again on the survivors, in transaction order, so that calls of the departed
     * node that conflict run again in the order they first had.
     */
    private void onSettlement(Settlement settlement) {
        for (CallOutcome outcome : settlement.stood()) {
            eventTxn = outcome.txnId();
            PendingCall call = unsettled.remove(outcome.txnId());
            if (call != null) {
                inFlightCalls.remove(new CallRef(call.client(), call.callId()));
                answeredFromLog.incrementAndGet();
                send(call.client(), outcome.forCall(call.callId())); // its rows and error fields too
            }
        }
        for (long txn : settlement.unknown()) {
            eventTxn = txn;
            PendingCall call = unsettled.remove(txn);
            if (call != null) {
                inFlightCalls.remove(new CallRef(call.client(), call.callId()));
                reject(
                        call.client(),
                        call.callId(),
                        call.node() + " left after transaction " + txn + " was committed everywhere, and its result "
                                + "is no longer held: it ran once, its result is unknown");
            }
        }
        long[] abandoned = settlement.abandoned().clone();
        java.util.Arrays.sort(abandoned);
        for (long txn : abandoned) {
            eventTxn = txn;
            PendingCall call = unsettled.remove(txn);
            if (call != null) {
                ranAgain.incrementAndGet();
                place(call.client(), call.callId(), call.call(), call.after());
            }
        }
    }

    /**
     * Site schedulers: a departed node's unreported updates are in (or on their way to) every site's agreed order, and
     * the calls placed after one may depend on it alone for its agreed back-dependencies (a dependency list names the
     * last writer of each class). Abandoned at once, before those dependencies are in the write-set log, a later call
     * could run before them. So each is settled as an orphan is ({@link #settleOrphans}): once it is agreed and its
     * agreed back-dependencies are in the write-set log. Returns the ones that still go into an ABANDON at once (none
     * in practice: every lost update of this scheduler is in flight here).
     */
    private List<Placement> settledInAgreedOrder(List<Placement> lost) {
        List<Placement> now = new ArrayList<>();
        lost.stream()
                .filter(placement -> !placement.readOnly())
                .sorted(java.util.Comparator.comparingLong(Placement::txn))
                .forEach(placement -> {
                    PendingCall call = unsettled.get(placement.txn());
                    if (call == null) {
                        now.add(placement);
                    } else {
                        settleOnceAgreed(placement.txn(), call);
                    }
                });
        return now;
    }

    /** Settles {@code txn} as an orphan: now if the schedule log placed it, else once it does. */
    private void settleOnceAgreed(long txn, PendingCall call) {
        if (call.agreed() != null) {
            settleAsAnOrphan(txn, call.agreed());
        } else {
            lostBeforeAgreed.add(txn);
        }
    }

    /**
     * Has the survivors settle, in their total order, the departed node's unreported update transactions: each counts
     * as done with no effect unless its write-set was delivered first, so calls that depend on it do not wait forever.
     * Every survivor broadcasts the decision (the scheduler is not in the write-set group): the first copy delivered
     * decides, the others change nothing, and one survivor leaving too cannot lose it.
     */
    private void abandon(String node, List<Placement> lost) {
        long[] updates = lost.stream()
                .filter(placement -> !placement.readOnly())
                .mapToLong(Placement::txn)
                .toArray();
        if (updates.length == 0 || nodes.isEmpty()) {
            return;
        }
        LOG.info(
                "asking {} to settle {} transaction(s) of {} in the total order", nodes.keySet(), updates.length, node);
        Abandon decision = new Abandon(node, updates);
        for (Address survivor : nodes.values()) {
            send(survivor, decision);
        }
    }

    /** Whether two views hold the same members other than clients (clients come and go with every run). */
    private static boolean sameNodes(View before, View after) {
        return withoutClients(before).equals(withoutClients(after));
    }

    private static List<Address> withoutClients(View view) {
        List<Address> members = new ArrayList<>();
        for (Address member : view.getMembers()) {
            String name = org.jgroups.util.NameCache.get(member);
            if (name == null || !name.startsWith(GargamelClient.CLIENT_NAME_PREFIX)) {
                members.add(member);
            }
        }
        return members;
    }

    /** A node for the log: its name, and its address in the group when that is not simply the name. */
    private static String named(String node, Address address) {
        String shown = String.valueOf(address);
        return shown.equals(node) ? node : node + " (" + shown + ")";
    }

    private void reject(Address client, long callId, String reason) {
        rejected.incrementAndGet();
        send(client, CallOutcome.rejected(callId, -1, reason));
    }

    /** A send that fails (the target left, the channel is closing) is logged; the view change settles the rest. */
    private void send(Address target, Message message) {
        try {
            MessageEndpoint.send(channel, target, message);
        } catch (Exception e) {
            if (running) {
                LOG.warn("cannot send {} to {}: {}", message.describe(), target, e.toString());
            }
        }
    }
}
