package org.gargamel.common.client;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.common.wire.TakeOver;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's side of Gargamel (DESIGN.md §2): joins the control group, submits calls to the scheduler
 * asynchronously, and completes each call's future exactly once — with its {@link CallOutcome} (committed,
 * user-aborted, rejected), or exceptionally with a {@link GargamelClientException} (overloaded, timed out,
 * disconnected). Thread-safe. When the scheduler changes (failover: docs/protocol.md), every call still waiting is sent
 * to the new one with the same call id, and calls submitted between two schedulers wait for the next one; the cluster
 * runs each at most once.
 *
 * <p>Messages arrive through a {@link MessageEndpoint} (malformed and unexpected ones are counted, logged at WARN and
 * dropped). A handler that throws is a bug in this library that leaves its bookkeeping in doubt, and one cannot tell
 * which call it concerned: the client then closes itself, logging the reason at ERROR. Every call still pending fails
 * at once with {@link GargamelClientException.Reason#DISCONNECTED} and a message naming the reason (so each call
 * still completes exactly once), as does every later submit.
 */
public final class GargamelClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GargamelClient.class);
    public static final String SCHEDULER_NAME = "scheduler";
    /** Clients' names in the control group start with this (a scheduler tells them from nodes by it). */
    public static final String CLIENT_NAME_PREFIX = "client-";

    private static final long SWEEP_MILLIS = 50;

    private final JChannel channel;
    private final ClientOptions options;
    private final Semaphore slots;
    private final Map<Long, PendingCall> pending = new ConcurrentHashMap<>();
    private final Map<Long, CompletableFuture<DrainStatus>> drains = new ConcurrentHashMap<>();
    private final AtomicLong nextCallId = new AtomicLong();
    private final AtomicLong resubmitted = new AtomicLong();
    /** Held while a call is recorded and sent, and while a new scheduler gets the pending calls. */
    private final Object schedulerChange = new Object();

    private final ScheduledExecutorService timers;
    /** The periodic {@link #sweepTimeouts}; cancelled by {@link #close}. */
    private final ScheduledFuture<?> timeoutSweep;

    private final MessageEndpoint endpoint;
    private final ClientSession defaultSession = new ClientSession(this);
    private volatile Address scheduler;
    private volatile boolean closed;
    /** Why the client closed itself (a failed handler); null when open or closed by its owner. */
    private volatile String failedBecause;

    private GargamelClient(JChannel channel, ClientOptions options) {
        this.channel = channel;
        this.options = options;
        this.slots = new Semaphore(options.maxInFlight());
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "gargamel-client-timeouts");
            thread.setDaemon(true);
            return thread;
        });
        this.timers = executor;
        this.timeoutSweep = timers.scheduleWithFixedDelay(
                this::sweepTimeoutsOrFail, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        this.endpoint = new MessageEndpoint(channel.getName(), this::failed)
                .on(
                        CallOutcome.class,
                        MessageType.CALL_OUTCOME,
                        (source, outcome) -> finish(outcome.callId(), outcome, null))
                .on(DrainStatus.class, MessageType.DRAIN_STATUS, (source, status) -> {
                    CompletableFuture<DrainStatus> future = drains.get(status.queryId());
                    if (future != null) {
                        future.complete(status);
                    }
                })
                // A scheduler asking the nodes to make it active: multicast, so clients see it too; nothing to do.
                .on(TakeOver.class, MessageType.TAKE_OVER, (source, takeOver) -> {})
                .onView(this::viewChanged);
    }

    /**
     * Joins the group and waits until the scheduler is a member. A client never founds a cluster of its own: if its
     * discovery missed the scheduler (a loaded machine) and it became the coordinator of a group without one, it
     * leaves and joins again, until the connect timeout. Otherwise a later merge could leave it unable to reach
     * nodes that joined meanwhile.
     */
    public static GargamelClient connect(GroupConfig group, ClientOptions options) throws Exception {
        return connect(group, options, null);
    }

    /**
     * As {@link #connect(GroupConfig, ClientOptions)}, to the scheduler of {@code site} (docs/multisite.md): a client
     * talks to its own site's scheduler, in that site's control group (null: a single-site cluster).
     */
    public static GargamelClient connect(GroupConfig group, ClientOptions options, String site) throws Exception {
        return connect(group, options, site, Duration.ZERO);
    }

    /**
     * As {@link #connect(GroupConfig, ClientOptions, String)}, for a client {@code distance} (one way) from the
     * scheduler and the nodes: a remote site's client of one scheduler, emulated on one machine (compare --sites).
     */
    public static GargamelClient connect(GroupConfig group, ClientOptions options, String site, Duration distance)
            throws Exception {
        // TCPPING needs a fixed port, even for a client: take a free one.
        GroupConfig bound = group.transport() == GroupConfig.Transport.TCP && group.bindPort() == 0
                ? group.withBindPort(LoopbackPorts.pick())
                : group;
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        while (true) {
            JChannel channel = Channels.control(
                    bound, CLIENT_NAME_PREFIX + UUID.randomUUID().toString().substring(0, 8), distance);
            GargamelClient client = new GargamelClient(channel, options);
            channel.setReceiver(client.endpoint);
            try {
                channel.connect(Channels.controlCluster(site));
                client.viewChanged(channel.getView());
                boolean founded = channel.getView().getCoord().equals(channel.getAddress());
                while (client.scheduler == null
                        && !(founded && channel.getView().size() == 1)) {
                    if (System.nanoTime() > deadline) {
                        throw noScheduler(options, channel);
                    }
                    Thread.sleep(20);
                }
                if (client.scheduler != null) {
                    return client;
                }
                if (System.nanoTime() > deadline) {
                    throw noScheduler(options, channel);
                }
                client.close();
                Thread.sleep(200); // alone in a group of its own: leave, and look for the scheduler again
            } catch (Exception | Error e) {
                client.close();
                throw e;
            }
        }
    }

    private static GargamelClientException noScheduler(ClientOptions options, JChannel channel) {
        return new GargamelClientException(
                GargamelClientException.Reason.DISCONNECTED,
                "no scheduler joined the group within "
                        + options.connectTimeout().toSeconds() + " s (members: "
                        + channel.getView().getMembers() + ")");
    }

    /**
     * Submits a call in the client's default session (read-your-writes for calls made one after another: see
     * {@link ClientSession}); the future completes exactly once. Never blocks. Threads that call concurrently and
     * each need to read their own writes should each {@link #openSession() open a session}.
     */
    public CompletableFuture<CallOutcome> submit(ProcedureCall call) {
        return defaultSession.submit(call);
    }

    /** Submits and waits for the outcome, in the client's default session. */
    public CallOutcome call(ProcedureCall call) throws InterruptedException {
        return defaultSession.call(call);
    }

    /** A new session: its calls read its own acknowledged writes, whichever replica runs them. */
    public ClientSession openSession() {
        return new ClientSession(this);
    }

    /** Submits a call that runs only where update transaction {@code after} (0: none) is visible. */
    CompletableFuture<CallOutcome> submit(ProcedureCall call, long after) {
        CompletableFuture<CallOutcome> future = new CompletableFuture<>();
        if (closed) {
            future.completeExceptionally(new GargamelClientException(
                    GargamelClientException.Reason.DISCONNECTED,
                    closedReason() + "; " + call.procedure() + " was not sent"));
            return future;
        }
        if (!slots.tryAcquire()) {
            future.completeExceptionally(new GargamelClientException(
                    GargamelClientException.Reason.OVERLOADED,
                    options.maxInFlight() + " calls are already in flight (the client's limit); " + call.procedure()
                            + " was not sent"));
            return future;
        }
        long callId = nextCallId.incrementAndGet();
        // Under the lock a scheduler change takes to resubmit: each scheduler gets each call once, never twice (two
        // copies at one scheduler could both run before either is in the log).
        synchronized (schedulerChange) {
            PendingCall recorded = new PendingCall(
                    future,
                    call,
                    after,
                    System.nanoTime() + options.callTimeout().toNanos());
            pending.put(callId, recorded);
            // close() may have run failAll() between the check above and put():
            if (closed) {
                fail(
                        callId,
                        GargamelClientException.Reason.DISCONNECTED,
                        closedReason() + "; " + call.procedure() + " was not sent");
                return future;
            }
            Address target = scheduler;
            if (target == null) {
                return future; // between two schedulers: the next one gets every pending call, this one too
            }
            try {
                MessageEndpoint.send(channel, target, new SubmitCall(callId, call, after));
                recorded.sentTo().add(target);
            } catch (Exception e) {
                fail(
                        callId,
                        GargamelClientException.Reason.DISCONNECTED,
                        "cannot send " + call.procedure() + " to the scheduler: " + e.getMessage());
            }
        }
        return future;
    }

    /** Waits for a call's outcome; a client failure is thrown as itself. */
    static CallOutcome await(CompletableFuture<CallOutcome> outcome) throws InterruptedException {
        try {
            return outcome.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GargamelClientException failure) {
                throw failure;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Asks the scheduler how much is in flight and how many nodes it knows. */
    public DrainStatus drainStatus(Duration timeout) throws InterruptedException, TimeoutException {
        long queryId = nextCallId.incrementAndGet();
        CompletableFuture<DrainStatus> future = new CompletableFuture<>();
        drains.put(queryId, future);
        try {
            Address target = scheduler;
            if (target == null) {
                throw new GargamelClientException(
                        GargamelClientException.Reason.DISCONNECTED, "no scheduler in the group");
            }
            MessageEndpoint.send(channel, target, new DrainQuery(queryId));
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (InterruptedException | TimeoutException e) {
            throw e;
        } catch (Exception e) {
            throw new GargamelClientException(
                    GargamelClientException.Reason.DISCONNECTED, "cannot ask the scheduler: " + e.getMessage());
        } finally {
            drains.remove(queryId);
        }
    }

    /** Waits until the scheduler knows {@code nodes} nodes. */
    public void awaitNodes(int nodes, Duration timeout) throws InterruptedException, TimeoutException {
        awaitStatus(status -> status.nodes() >= nodes, timeout, "the scheduler to see " + nodes + " node(s)");
    }

    /** Waits until every transaction scheduled so far is visible at every node. */
    public void awaitQuiescence(Duration timeout) throws InterruptedException, TimeoutException {
        awaitStatus(status -> status.inFlight() == 0, timeout, "every replica to apply every write-set");
    }

    /**
     * As {@link #awaitQuiescence(Duration)}, and every one of {@code nodes} nodes serves: a node that left (cut off,
     * restarted, rebuilt) and is still catching up with the write-set log is not counted by the scheduler, so nothing
     * is in flight for it while its replica is behind.
     */
    public void awaitQuiescence(int nodes, Duration timeout) throws InterruptedException, TimeoutException {
        awaitStatus(
                status -> status.inFlight() == 0 && status.nodes() >= nodes,
                timeout,
                "every replica to apply every write-set with " + nodes + " node(s) serving");
    }

    private void awaitStatus(java.util.function.Predicate<DrainStatus> done, Duration timeout, String what)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        DrainStatus last = null;
        while (System.nanoTime() < deadline) {
            last = drainStatus(Duration.ofSeconds(5));
            if (done.test(last)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new TimeoutException("gave up waiting for " + what + " after " + timeout.toSeconds() + " s (last status: "
                + (last == null ? "none" : last.inFlight() + " in flight, " + last.nodes() + " node(s)") + ")");
    }

    /** Calls of this client awaiting their outcome. */
    public int inFlight() {
        return pending.size();
    }

    /**
     * Transactions the scheduler has scheduled (from every client) and not yet seen visible at every node;
     * asks it with DRAIN_QUERY and waits up to 10 s for the answer.
     */
    public long inFlightAtScheduler() throws InterruptedException, TimeoutException {
        return drainStatus(Duration.ofSeconds(10)).inFlight();
    }

    public String name() {
        return channel.getName();
    }

    /** Tests: the endpoint the client receives through (to make one of its handlers fail). */
    MessageEndpoint endpoint() {
        return endpoint;
    }

    /** Messages this client dropped because they did not decode, and well-formed ones of a type it does not take. */
    public long malformedCount() {
        return endpoint.malformedCount();
    }

    public long unexpectedCount() {
        return endpoint.unexpectedCount();
    }

    @Override
    public void close() {
        closed = true;
        channel.close();
        failAll("the client was closed");
        timeoutSweep.cancel(false);
        timers.shutdownNow();
    }

    private String closedReason() {
        String reason = failedBecause;
        return reason == null ? "the client is closed" : reason;
    }

    /**
     * A message handler threw (see the class comment): fails every pending call and closes the client. The channel is
     * closed off the JGroups thread that reports this (closing it from its own receive thread could stall the leave).
     */
    private void failed(Throwable reason) {
        if (closed) {
            LOG.error(
                    "{}: a message handler failed after the client closed: {}",
                    channel.getName(),
                    reason.getMessage(),
                    reason);
            return;
        }
        LOG.error("{}: closing the client: {}", channel.getName(), reason.getMessage(), reason);
        failedBecause = "the client failed and closed itself (" + reason.getMessage() + ")";
        closed = true;
        failAll(failedBecause);
        try {
            timers.execute(this::close);
        } catch (RejectedExecutionException e) {
            close(); // closed meanwhile by its owner: nothing runs on the timer thread any more
        }
    }

    private void failAll(String reason) {
        for (Long callId : pending.keySet()) {
            fail(
                    callId,
                    GargamelClientException.Reason.DISCONNECTED,
                    reason + "; the outcome of call " + callId + " is unknown");
        }
        for (CompletableFuture<DrainStatus> drain : drains.values()) {
            drain.completeExceptionally(
                    new GargamelClientException(GargamelClientException.Reason.DISCONNECTED, reason));
        }
    }

    /**
     * A call still waiting: its future, the call (to resubmit it), when it times out, and the schedulers it was sent to
     * (guarded by {@link #schedulerChange}: each scheduler gets it once, see {@link #resubmitAll}).
     */
    private record PendingCall(
            CompletableFuture<CallOutcome> future, ProcedureCall call, long after, long deadline, Set<Address> sentTo) {
        PendingCall(CompletableFuture<CallOutcome> future, ProcedureCall call, long after, long deadline) {
            this(future, call, after, deadline, new HashSet<>(2));
        }

        String procedure() {
            return call.procedure();
        }
    }

    /**
     * {@link #sweepTimeouts}, supervised: an exception would end the periodic task silently (its future would hold it,
     * unread) and no call would time out any more, so the client closes itself as for a failed handler.
     */
    private void sweepTimeoutsOrFail() {
        try {
            lookForTheSchedulerAgain();
            sweepTimeouts();
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    /**
     * A member's name can come after the view that brought it in: a client is in no member's list of initial hosts,
     * so when it is the coordinator (the scheduler died, and the nodes joined after the client) a scheduler started
     * again joins through it without the client having seen its discovery, and the client learns the name from the
     * merge protocol's gossip seconds later. Looked up only at the view change, the new scheduler stayed unseen for
     * good (chaos --sites 3: a site's client saw "no scheduler in the group" for 60 s beside it).
     */
    private void lookForTheSchedulerAgain() {
        View view = channel.getView();
        if (scheduler == null && view != null && activeScheduler(view) != null) {
            viewChanged(view);
        }
    }

    /**
     * Fails the calls past their deadline. Runs every {@link #SWEEP_MILLIS} ms (cheaper than one timer per call at
     * tens of thousands of calls per second; a timeout fires up to that much late).
     */
    private void sweepTimeouts() {
        long now = System.nanoTime();
        for (Map.Entry<Long, PendingCall> entry : pending.entrySet()) {
            PendingCall call = entry.getValue();
            if (now - call.deadline() >= 0) {
                fail(
                        entry.getKey(),
                        GargamelClientException.Reason.TIMED_OUT,
                        "no outcome for " + call.procedure()
                                + " (call " + entry.getKey() + ") within "
                                + options.callTimeout().toMillis()
                                + " ms: the outcome is unknown (it may still commit)");
            }
        }
    }

    /**
     * The one place a call ends: whoever removes it from {@link #pending} completes it, after freeing its slot (so
     * code run on completion may submit again at once).
     */
    private void finish(long callId, CallOutcome outcome, GargamelClientException failure) {
        PendingCall call = pending.remove(callId);
        if (call == null) {
            return;
        }
        slots.release();
        if (failure != null) {
            call.future.completeExceptionally(failure);
        } else {
            call.future.complete(outcome);
        }
    }

    private void fail(long callId, GargamelClientException.Reason reason, String message) {
        finish(callId, null, new GargamelClientException(reason, message));
    }

    private void viewChanged(View view) {
        Address found = activeScheduler(view);
        synchronized (schedulerChange) {
            for (PendingCall call : pending.values()) {
                // One that left may not have had it (it may come back with a merge): it would get it again.
                call.sentTo().removeIf(sentTo -> !view.containsMember(sentTo));
            }
            Address previous = scheduler;
            scheduler = found;
            if (found != null && !found.equals(previous) && !pending.isEmpty()) {
                resubmitAll(found);
            }
        }
    }

    /**
     * The active scheduler as every member sees it: the first member named {@code scheduler} in the view (the oldest
     * one); any later one stands by until those before it are gone (docs/protocol.md, Scheduler failover). Null if none.
     */
    public static Address activeScheduler(View view) {
        for (Address member : view.getMembers()) {
            if (SCHEDULER_NAME.equals(NameCache.get(member))) {
                return member;
            }
        }
        return null;
    }

    /**
     * Scheduler failover (docs/protocol.md): a new scheduler is here; every call still waiting goes to it again with
     * the same call id. One whose first run took effect is answered with that run's outcome, not run twice; one that
     * never ran, runs. Calls wait through the gap between schedulers (up to their timeout), they do not fail.
     *
     * <p>A call sent to {@code target} while it stayed in the view is not sent to it again (the group's unicasts are
     * reliable between members): a merge can put a superseded scheduler first in the view for a moment
     * (docs/protocol.md), so the client goes from the active scheduler to the old one and back, and a second copy at
     * the active one could run beside the first before either is in the log (a node answers a resubmitted call from
     * the first run's outcome only once that run's write-set is there).
     */
    private void resubmitAll(Address target) {
        int count = 0;
        for (Map.Entry<Long, PendingCall> entry : pending.entrySet()) {
            if (entry.getValue().sentTo().contains(target)) {
                continue; // it has it: its answer comes from there
            }
            try {
                MessageEndpoint.send(
                        channel,
                        target,
                        new SubmitCall(
                                entry.getKey(),
                                entry.getValue().call(),
                                entry.getValue().after()));
                entry.getValue().sentTo().add(target);
                count++;
            } catch (Exception e) {
                LOG.warn(
                        "{}: cannot resubmit call {} to the new scheduler: {}",
                        channel.getName(),
                        entry.getKey(),
                        e.toString());
            }
        }
        if (count > 0) {
            resubmitted.addAndGet(count);
            LOG.info("{}: resubmitted {} pending call(s) to the new scheduler {}", channel.getName(), count, target);
        }
    }

    /** Calls sent again to a new scheduler after the previous one left (each is answered once all the same). */
    public long resubmittedCount() {
        return resubmitted.get();
    }
}
