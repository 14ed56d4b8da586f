package org.gargamel.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Settlement;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.common.wire.Superseded;
import org.gargamel.common.wire.TakeOver;
import org.gargamel.common.wire.VisibilityQuery;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.Agreement;
import org.gargamel.scheduler.sites.LogOrderAgreement;
import org.gargamel.scheduler.sites.OwnedAgreement;
import org.gargamel.scheduler.sites.PlacedByOwners;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler process (DESIGN.md §4): one event loop owns the {@link Scheduler} (graph, conflict index, workers)
 * and the objects beside it, the {@link CallTable}, the {@link NodeRegistry}, the {@link EpochClaim}, the
 * {@link DrainReport} and the site's {@link SiteCoordinator} (with {@link Membership} handling the nodes' comings and
 * goings); JGroups receive threads only decode messages and enqueue them (through a {@link MessageEndpoint}). Calls
 * come from clients (SUBMIT_CALL) and go to nodes (EXECUTE); nodes announce themselves (NODE_HELLO) and report what
 * became visible (PROGRESS); clients ask how much is still in flight (DRAIN_QUERY). A node that leaves the view has
 * its unreported calls settled by the survivors in the write-set log (ABANDON, then SETTLEMENT): those that stand are
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

    private final SchedulerConfig config;
    private final Scheduler scheduler;
    private final GroupConfig group;
    private final Supervisor supervisor = new Supervisor("scheduler");
    private final MessageEndpoint endpoint;
    private final BlockingQueue<Event> events = new ArrayBlockingQueue<>(QUEUE_CAPACITY);

    private final CallTable calls = new CallTable();
    private final NodeRegistry nodes;
    private final EpochClaim takeOver = new EpochClaim();
    private final DrainReport drains;
    private final SiteCoordinator sites;
    /** ABANDON decisions sent again until their calls are settled. */
    private final AbandonResends resends;

    private final Membership membership;

    private final CallIntake intake;

    private JChannel channel;
    /** The latest view, as seen by the loop: a NODE_HELLO from outside it is stale and ignored. */
    private volatile View view;
    /** The transaction the running event is about (0: none yet), for the fatal log line; loop thread only. */
    private long eventTxn;

    private Thread loop;
    private volatile boolean running;

    /** One unit of the loop's work, one per received message; {@code describe} names it in the log line if it fails. */
    private record Event(Supplier<String> describe, Runnable run) {}

    public SchedulerServer(SchedulerConfig config) {
        this.config = config.validate();
        ClassifierRules rules = config.loadRules();
        this.scheduler = new Scheduler(rules, config.mode(), config.isolation());
        this.nodes = new NodeRegistry(new ClusterProfile(config.mode(), config.isolation(), rules.digest(), ""));
        LoopContext context = new LoopContext(
                this::send,
                (name, task) -> enqueue(new Event(name, task)),
                supervisor::fail,
                () -> running,
                txn -> eventTxn = txn);
        this.resends = new AbandonResends(calls, nodes, context);
        this.sites = SiteCoordinator.of(config, rules, scheduler, calls, nodes, takeOver, resends, context);
        this.intake = new CallIntake(config.maxInFlight(), scheduler, calls, nodes, sites, takeOver, context);
        this.drains = new DrainReport(scheduler, calls, nodes, sites, context);
        this.membership = new Membership(
                scheduler,
                calls,
                nodes,
                sites,
                resends,
                context,
                intake::place,
                intake::reject,
                () -> view,
                this::checkTakeOver);
        this.group = config.controlGroup();
        this.endpoint = new MessageEndpoint("scheduler", supervisor::fail)
                .on(SubmitCall.class, MessageType.SUBMIT_CALL, this::received)
                .on(
                        NodeHello.class,
                        MessageType.NODE_HELLO,
                        (source, hello) -> enqueue(new Event(
                                () -> hello.describe() + " from " + source, () -> membership.onHello(source, hello))))
                .on(
                        EpochGranted.class,
                        MessageType.EPOCH_GRANTED,
                        (source, grant) -> enqueue(
                                new Event(() -> grant.describe() + " from " + source, () -> onGranted(source, grant))))
                .on(
                        Superseded.class,
                        MessageType.SUPERSEDED,
                        (source, notice) -> enqueue(new Event(
                                () -> notice.describe() + " from " + source, () -> onSuperseded(source, notice))))
                // Its own TAKE_OVER comes back to it (a multicast): nothing to do.
                .on(TakeOver.class, MessageType.TAKE_OVER, (source, takeOver) -> {})
                .on(
                        Progress.class,
                        MessageType.PROGRESS,
                        (source, progress) -> enqueue(
                                new Event(() -> progress.describe() + " (" + source + ")", () -> onProgress(progress))))
                .on(
                        DrainQuery.class,
                        MessageType.DRAIN_QUERY,
                        (source, query) -> enqueue(new Event(
                                () -> query.describe() + " from " + source,
                                () -> drains.query(source, query, takeOver.done()))))
                .on(
                        Settlement.class,
                        MessageType.SETTLEMENT,
                        (source, settled) -> enqueue(new Event(
                                () -> settled.describe() + " (" + source + ")",
                                () -> membership.onSettlement(settled))))
                .onView(view -> enqueue(new Event(() -> "view " + view, () -> onView(view))));
    }

    public void start() throws Exception {
        start(channel -> {});
    }

    /**
     * Starts the loop and joins the control group; {@code beforeConnect} may change the channel first (tests insert
     * JGroups fault-injection protocols such as DISCARD and DELAY). A site scheduler joins the schedule log only once
     * the write-set log made it its site's active one ({@link #onGranted}).
     */
    public void start(Consumer<JChannel> beforeConnect) throws Exception {
        running = true;
        loop = supervisor.start(LOOP_THREAD, this::runLoop);
        sites.start();
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
        return takeOver.epoch();
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

    /** Copies of calls in flight here that a client sent again, not placed twice. */
    public long ignoredCopyCount() {
        return intake.ignoredCopies();
    }

    /** Calls scheduled so far. */
    public long scheduledCount() {
        return intake.scheduled();
    }

    public long rejectedCount() {
        return intake.rejected();
    }

    /** This site scheduler's Raft id in the schedule log, once it joined it (docs/multisite.md). */
    public Optional<String> scheduleLogMember() {
        return sites.scheduleLogMember();
    }

    /** The schedule log's members as this site scheduler knows them; empty before it joined. */
    public List<String> scheduleLogMembers() {
        return sites.scheduleLogMembers();
    }

    /** A site scheduler's counters with site-owned classes or abort-free, read on the loop; empty otherwise. */
    public Optional<OwnedAgreement.Counters> ownedCounters() throws InterruptedException, TimeoutException {
        Optional<Agreement> owners = sites.agreement().filter(PlacedByOwners.class::isInstance);
        return owners.isEmpty()
                ? Optional.empty()
                : Optional.of(readOnLoop("the owned classes' counters", () ->
                        (OwnedAgreement.Counters) owners.get().counters()));
    }

    /**
     * A site scheduler's agreement counters (calls placed and agreed, collisions, restacks, copies and early entries
     * of the schedule log), read on the loop; empty for a single-site scheduler and when placed by owners.
     */
    public Optional<LogOrderAgreement.Counters> agreementCounters() throws InterruptedException, TimeoutException {
        Optional<Agreement> logOrder = sites.agreement().filter(LogOrderAgreement.class::isInstance);
        return logOrder.isEmpty()
                ? Optional.empty()
                : Optional.of(readOnLoop("the agreement's counters", () ->
                        (LogOrderAgreement.Counters) logOrder.get().counters()));
    }

    /** Reads {@code what} on the event loop, which owns the site's scheduling (tests, logs). */
    private <T> T readOnLoop(String what, Supplier<T> read) throws InterruptedException, TimeoutException {
        CompletableFuture<T> result = new CompletableFuture<>();
        runOnLoop("read " + what, () -> result.complete(read.get()));
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("reading " + what + " failed", e.getCause());
        }
    }

    /** Calls of departed nodes run again on the survivors (abandoned in the log, or read-only). */
    public long ranAgainCount() {
        return membership.ranAgain();
    }

    /** Calls of departed nodes answered from their write-sets in the log (they stand). */
    public long answeredFromLogCount() {
        return membership.answeredFromLog();
    }

    /** NODE_HELLOs refused because the node's configuration differs from the cluster's. */
    public long refusedNodeCount() {
        return membership.refusedNodes();
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
        sites.close();
        supervisor.stop(STOP_GRACE);
    }

    /** Tests: runs {@code task} on the loop as an event named {@code name}, after the events already queued. */
    void runOnLoop(String name, Runnable task) {
        enqueue(new Event(() -> name, task));
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
            if (intake.holdsCalls()) {
                intake.releaseHeld();
            }
            sites.tick();
            resends.tick();
            if (first == null) {
                continue;
            }
            batch.add(first);
            events.drainTo(batch, BATCH - 1);
            for (int i = 0, n = batch.size(); i < n; i++) {
                Event event = batch.get(i);
                eventTxn = 0;
                try {
                    event.run().run();
                } catch (SupersededException e) {
                    throw e; // not a fault of the event: its message says it all
                } catch (RuntimeException | Error e) {
                    throw new FatalException(
                            LOOP_THREAD + ": " + event.describe().get()
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
            intake.reject(
                    client,
                    submit.callId(),
                    "the scheduler has failed (see its log) and is stopping; "
                            + submit.call().procedure() + " was not scheduled");
        } else if (!events.offer(
                new Event(() -> submit.describe() + " from " + client, () -> intake.onSubmit(client, submit)))) {
            intake.reject(
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

    private void onProgress(Progress progress) {
        String node = progress.nodeName();
        sites.progress(progress);
        for (long txn : progress.visible()) {
            eventTxn = txn;
            scheduler.reportVisible(node, txn);
            sites.visible(node, txn);
            calls.reported(node, txn);
        }
        if (progress.forgotten() > 0) {
            askWhatIsVisible(node, progress.forgotten());
        }
    }

    /**
     * {@code node} forgot reports it held while it saw no scheduler (it holds a bounded number: docs/protocol.md, Life
     * of a call): if this scheduler still counts it, it asks which of the transactions it awaits from it are visible
     * there; the node answers the visible ones at once and reports the others as usual. Without the question those
     * transactions would stay in flight for ever ({@code ForgottenReportsTest}).
     */
    private void askWhatIsVisible(String node, long forgotten) {
        Address address = nodes.address(node);
        if (address == null) {
            return; // not counted here: nothing is awaited from it
        }
        long[] awaited = java.util.stream.LongStream.concat(
                        java.util.Arrays.stream(scheduler.awaitedFrom(node)),
                        java.util.Arrays.stream(sites.awaitedFrom(node)))
                .distinct()
                .toArray();
        LOG.info(
                "{} forgot {} report(s) it could not send while it saw no scheduler: asking it which of the {}"
                        + " transaction(s) awaited from it are visible there",
                node,
                forgotten,
                awaited.length);
        if (awaited.length > 0) {
            send(address, new VisibilityQuery(awaited));
        }
    }

    /**
     * A node applied this scheduler's claim. The first grant makes it active, with the claim's epoch: transaction ids
     * start there, and the calls held meanwhile are placed.
     */
    private void onGranted(Address source, EpochGranted grant) {
        EpochClaim.Grant outcome = takeOver.granted(source, grant, view);
        if (outcome == EpochClaim.Grant.IGNORED) {
            LOG.warn("ignored {} from {}: this scheduler's epoch is {}", grant.describe(), source, takeOver.epoch());
            return;
        }
        if (outcome == EpochClaim.Grant.ACTIVATED) {
            LOG.info(
                    "the write-set log made this scheduler the active one: epoch {} (granted by {})",
                    takeOver.epoch(),
                    grant.nodeName());
            sites.activated(grant, takeOver.epoch());
        }
        checkTakeOver();
    }

    /**
     * A node says the log made another scheduler active after this one (it was cut off, not dead): this one stops
     * without answering its calls, whose clients resubmit them to the active scheduler once this one has left.
     */
    private void onSuperseded(Address source, Superseded notice) {
        if (!takeOver.supersededBy(notice)) {
            LOG.warn("ignored {} from {}: this scheduler's epoch is {}", notice.describe(), source, takeOver.epoch());
            return;
        }
        throw new SupersededException("the write-set log made another scheduler active at epoch " + notice.epoch()
                + " (told by " + notice.nodeName() + "), after this one"
                + (takeOver.active() ? " (epoch " + takeOver.epoch() + ")" : "")
                + ": it was cut off; it stops and leaves the group");
    }

    /**
     * Once the take-over is done ({@link EpochClaim#becameDone}), the joining nodes' drain queries are answered: no node
     * serves this epoch before every earlier write-set is in the log.
     */
    private void checkTakeOver() {
        if (!takeOver.becameDone(view, nodes, channel.getAddress())) {
            return;
        }
        LOG.info("take-over done: {} node(s) here, none still running calls of an earlier scheduler", nodes.size());
        sites.takeOverDone();
        drains.takeOverDone();
    }

    private void onView(View view) {
        boolean merged = view instanceof org.jgroups.MergeView;
        if (merged || this.view == null || !Membership.sameNodes(this.view, view)) {
            LOG.info("{} {}", merged ? "merged view" : "view", view);
        }
        this.view = view;
        if (!takeOver.active()) {
            Address first = GargamelClient.activeScheduler(view);
            if (channel.getAddress().equals(first)) {
                claim(); // the oldest scheduler here: it takes over (again at every view: nodes may have joined since)
            } else if (takeOver.standsByFor(first)) {
                LOG.info("standing by: {} is the active scheduler; this one takes over when it is gone", first);
            }
        }
        membership.onView(view);
        checkTakeOver();
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
