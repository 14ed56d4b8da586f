package org.gargamel.scheduler.cluster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Agreement;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.NodeRefused;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Settlement;
import org.gargamel.common.wire.TakeOver;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.common.wire.VisibilityQuery;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.tpcc.TpccRules;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Receiver;
import org.jgroups.View;

/**
 * A node without PostgreSQL, for the scheduler's cluster tests and benchmark (docs/protocol.md): it joins the
 * control group, announces its workers, runs each worker's EXECUTEs in FIFO order once every back-dependency is
 * visible here, answers the client (COMMITTED, or USER_ABORTED for a call whose procedure is in
 * {@link Bus#abortProcedure}), and reports PROGRESS. "Write-sets" travel over an in-JVM {@link Bus}: an update
 * executed here becomes visible at the other nodes of the bus, which report it too.
 *
 * <p>One thread per node does everything. It checks what the scheduler promised: a back-dependency must have
 * finished executing somewhere (globally) before a dependent starts; otherwise {@link Bus#violations} says so.
 */
public final class FakeNode implements AutoCloseable {
    /** The nodes of one test cluster and what they observed together. */
    public static final class Bus {
        final List<FakeNode> nodes = new CopyOnWriteArrayList<>();
        /** Update transactions executed somewhere, with the node that ran them. */
        public final ConcurrentHashMap<Long, String> executed = new ConcurrentHashMap<>();
        /** The outcomes of those update transactions (what their write-sets carry). */
        public final ConcurrentHashMap<Long, CallOutcome> outcomes = new ConcurrentHashMap<>();
        /** Update transactions an ABANDON settled as done with no effect (a dependency satisfied without running). */
        public final Set<Long> abandoned = ConcurrentHashMap.newKeySet();

        public final List<String> violations = new CopyOnWriteArrayList<>();
        public final AtomicLong executions = new AtomicLong();
        /** Executions of a transaction id seen twice (must stay 0). */
        public final AtomicLong duplicates = new AtomicLong();

        public volatile String abortProcedure = "";
        /** The epoch each claimant got, as a write-set log would decide it (the order of first claims). */
        final ConcurrentHashMap<Address, Long> epochs = new ConcurrentHashMap<>();

        private final AtomicLong claims = new AtomicLong();
        /** The latest epoch granted to a scheduler of each site ("" in a single-site cluster). */
        private final ConcurrentHashMap<String, Long> latestEpochBySite = new ConcurrentHashMap<>();
        /** The epoch each claimant's site had before its claim (0: none): EPOCH_GRANTED's predecessor. */
        private final ConcurrentHashMap<Address, Long> predecessors = new ConcurrentHashMap<>();
        /** Calls of a superseded scheduler dropped before they ran. */
        public final AtomicLong droppedStale = new AtomicLong();

        long epochOf(Address claimant) {
            return epochs.computeIfAbsent(claimant, c -> claims.incrementAndGet());
        }
    }

    private record Visible(long txn) {}

    /** A scheduler's TAKE_OVER: a fake node grants it at once, with the bus's epoch for it. */
    private record Claimed(Address claimant) {}

    private final String name;
    /** This node's site ("" in a single-site cluster): it joins that site's control group. */
    private final String site;

    private final int workers;
    private final Bus bus;
    private final JChannel channel;
    private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private final List<Queue<Execute>> queues = new ArrayList<>();
    private final Set<Long> visible = new HashSet<>();
    private final long[] progressBuffer = new long[4096];
    private int progressCount;
    /** Read-only calls run here (reported, not kept in {@link #visible}): a visibility query's answer names them too. */
    private final Set<Long> readOnlyRun = new HashSet<>();
    /** While set, reports are forgotten (counted) instead of sent: a real node's bound while it saw no scheduler. */
    private volatile boolean forgetting;
    /** Ids forgotten and not yet told to the scheduler; the node's thread only. */
    private long forgotten;
    /** VISIBILITY_QUERYs received, in order. */
    public final List<VisibilityQuery> visibilityQueries = new CopyOnWriteArrayList<>();

    private final Thread thread;
    private volatile Address scheduler;
    private volatile boolean paused;
    private volatile boolean mute;
    private final AtomicInteger budget = new AtomicInteger(Integer.MAX_VALUE);
    /** ABANDONs still to lose, as if this node stopped before its log held them ({@link #loseAbandons}). */
    private final AtomicInteger abandonsToLose = new AtomicInteger();
    /** Whether each SETTLEMENT is sent twice ({@link #repeatSettlements}). */
    private volatile boolean repeatSettlements;

    private volatile boolean running = true;

    /** What this node says it runs (TPC-C's rules, gargamel, PSI, unless a test says otherwise). */
    private volatile ClusterProfile profile;

    /** The scheduler's refusals of this node. */
    public final List<NodeRefused> refusals = new CopyOnWriteArrayList<>();

    /** ABANDON decisions the scheduler asked this node to broadcast (a fake node only records them). */
    public final List<Abandon> abandons = new CopyOnWriteArrayList<>();

    /** Every EXECUTE received, in order (a test finds where a call went, and its back-dependencies). */
    public final List<Execute> received = new CopyOnWriteArrayList<>();

    /**
     * The AGREEMENTs a site scheduler sent (a fake node runs a provisional call at once and ignores them: a test of no
     * collision reads the agreed back-dependencies here).
     */
    public final List<Agreement> agreements = new CopyOnWriteArrayList<>();

    public FakeNode(String name, int workers, GroupConfig group, Bus bus, Consumer<JChannel> beforeConnect)
            throws Exception {
        this(name, workers, group, bus, beforeConnect, profile(Mode.GARGAMEL));
    }

    public FakeNode(
            String name,
            int workers,
            GroupConfig group,
            Bus bus,
            Consumer<JChannel> beforeConnect,
            ClusterProfile profile)
            throws Exception {
        this(name, null, workers, group, bus, beforeConnect, profile);
    }

    /** A node of {@code site} (null: a single-site cluster). */
    public FakeNode(
            String name,
            String site,
            int workers,
            GroupConfig group,
            Bus bus,
            Consumer<JChannel> beforeConnect,
            ClusterProfile profile)
            throws Exception {
        this.name = name;
        this.site = site == null ? "" : site;
        this.profile = profile;
        this.workers = workers;
        this.bus = bus;
        for (int i = 0; i < workers; i++) {
            queues.add(new ArrayDeque<>());
        }
        channel = Channels.control(group, name);
        channel.setReceiver(new Receiver() {
            @Override
            public void receive(org.jgroups.Message message) {
                Message decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
                if (decoded instanceof Execute execute) {
                    received.add(execute);
                    inbox.add(execute);
                } else if (decoded instanceof Agreement agreement) {
                    agreements.add(agreement);
                } else if (decoded instanceof TakeOver) {
                    inbox.add(new Claimed(message.getSrc()));
                } else if (decoded instanceof NodeRefused refused) {
                    refusals.add(refused);
                } else if (decoded instanceof Abandon abandon) {
                    abandons.add(abandon);
                    if (abandonsToLose.getAndUpdate(left -> Math.max(0, left - 1)) == 0) {
                        inbox.add(abandon);
                    }
                } else if (decoded instanceof VisibilityQuery query) {
                    visibilityQueries.add(query);
                    inbox.add(query);
                }
            }

            @Override
            public void viewAccepted(View view) {
                Address found = GargamelClient.activeScheduler(view);
                scheduler = found;
                if (found != null) {
                    inbox.add("hello");
                }
            }
        });
        beforeConnect.accept(channel);
        thread = new Thread(this::run, "fake-" + name);
        thread.setDaemon(true);
        thread.start();
        bus.nodes.add(this);
        channel.connect(Channels.controlCluster(site));
    }

    public FakeNode(String name, int workers, GroupConfig group, Bus bus) throws Exception {
        this(name, workers, group, bus, channel -> {});
    }

    public String name() {
        return name;
    }

    /** The profile of a node that runs TPC-C's rules in {@code mode} at PSI, with a fixed stand-in schema digest. */
    public static ClusterProfile profile(Mode mode) {
        String rules = ClassifierRules.load(java.nio.file.Path.of(TpccRules.temporaryFile()))
                .digest();
        return new ClusterProfile(mode, Isolation.PSI, rules, "fake-schema");
    }

    /** From the next NODE_HELLO on, this node says it runs {@code changed}. */
    public void profile(ClusterProfile changed) {
        profile = changed;
    }

    /** A paused node keeps receiving EXECUTEs but runs nothing (to leave calls pending). */
    public void pause(boolean pause) {
        paused = pause;
        inbox.add("wake");
    }

    /**
     * A mute node runs its calls and shares their "write-sets", but neither answers nor reports them: a node that died
     * right after the log took its entries.
     */
    public void mute(boolean mute) {
        this.mute = mute;
    }

    /**
     * While {@code forgetting}, every report is forgotten and counted, as a real node forgets what it held beyond its
     * bound while it saw no scheduler; once set back, the next report says how many were.
     */
    public void forgetReports(boolean forgetting) {
        this.forgetting = forgetting;
    }

    /** Runs at most {@code executions} more calls, then holds the rest. */
    public void budget(int executions) {
        budget.set(executions);
    }

    /**
     * Loses the next {@code count} ABANDONs (they are recorded in {@link #abandons}, not settled): as a real node that
     * stopped before its write-set log held one, or cut off from the log's majority, or one dropped on the way.
     */
    public void loseAbandons(int count) {
        abandonsToLose.set(count);
    }

    /** Sends each SETTLEMENT twice: as several nodes answer each copy of a decision the log holds (alike). */
    public void repeatSettlements(boolean repeat) {
        repeatSettlements = repeat;
    }

    /** Leaves the group (as a crash would, seen from the scheduler). */
    @Override
    public void close() {
        running = false;
        bus.nodes.remove(this);
        channel.close();
        thread.interrupt();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<Object> events = new ArrayList<>();
        while (running) {
            try {
                Object first = inbox.poll(20, TimeUnit.MILLISECONDS);
                if (first != null) {
                    events.add(first);
                    inbox.drainTo(events, 4096);
                }
            } catch (InterruptedException e) {
                return;
            }
            for (Object event : events) {
                if (event instanceof Execute execute) {
                    queues.get(Math.floorMod(execute.worker(), workers)).add(execute);
                    if (execute.worker() < 0 || execute.worker() >= workers) {
                        bus.violations.add(name + ": txn " + execute.txnId() + " for worker " + execute.worker()
                                + " of " + workers);
                    }
                } else if (event instanceof Visible v) {
                    makeVisible(v.txn());
                } else if (event instanceof Abandon abandon) {
                    settle(abandon);
                } else if (event instanceof VisibilityQuery query) {
                    long[] answer = java.util.Arrays.stream(query.transactions())
                            .filter(txn -> visible.contains(txn) || readOnlyRun.contains(txn))
                            .toArray();
                    send(scheduler, new Progress(name, answer));
                } else if (event instanceof Claimed claimed) {
                    long epoch = bus.epochOf(claimed.claimant());
                    // The epoch the site had before this claimant's: the first node to apply the claim decides.
                    long predecessor = bus.predecessors.computeIfAbsent(
                            claimed.claimant(), c -> bus.latestEpochBySite.getOrDefault(site, 0L));
                    bus.latestEpochBySite.merge(site, epoch, Math::max);
                    send(claimed.claimant(), new EpochGranted(name, epoch, predecessor));
                } else if ("hello".equals(event)) {
                    send(scheduler, new NodeHello(name, workers, true, profile));
                }
            }
            events.clear();
            if (!paused) {
                runQueues();
            }
            flushProgress();
        }
    }

    private void runQueues() {
        boolean progressed = true;
        while (progressed) {
            progressed = false;
            for (Queue<Execute> queue : queues) {
                Execute head;
                // As a real node: a call of a superseded scheduler that has not started never runs.
                while ((head = queue.peek()) != null
                        && TransactionIds.epochOf(head.txnId()) < bus.latestEpochBySite.getOrDefault(site, 0L)) {
                    queue.poll();
                    bus.droppedStale.incrementAndGet();
                    progressed = true;
                }
                while ((head = queue.peek()) != null && ready(head) && budget.get() > 0) {
                    budget.decrementAndGet();
                    queue.poll();
                    execute(head);
                    progressed = true;
                }
            }
        }
    }

    private boolean ready(Execute execute) {
        for (long dependency : execute.backDependencies()) {
            if (!visible.contains(dependency)) {
                return false;
            }
        }
        return true;
    }

    private void execute(Execute execute) {
        long txn = execute.txnId();
        bus.executions.incrementAndGet();
        for (long dependency : execute.backDependencies()) {
            if (!bus.executed.containsKey(dependency) && !bus.abandoned.contains(dependency)) {
                bus.violations.add(name + ": txn " + txn + " started before its dependency " + dependency + " ran");
            }
        }
        CallOutcome outcome = bus.abortProcedure.equals(execute.call().procedure())
                ? CallOutcome.userAborted(
                        execute.callId(),
                        txn,
                        "P0001",
                        "fake abort of " + execute.call().procedure())
                : CallOutcome.committed(execute.callId(), txn, "ok " + txn);
        if (!execute.readOnly()) {
            if (bus.executed.putIfAbsent(txn, name) != null) {
                bus.duplicates.incrementAndGet();
            }
            bus.outcomes.put(txn, outcome);
            if (mute) {
                visible.add(txn);
            } else {
                makeVisible(txn);
            }
            for (FakeNode other : bus.nodes) {
                if (other != this) {
                    other.inbox.add(new Visible(txn));
                }
            }
        } else if (!mute) {
            readOnlyRun.add(txn);
            addProgress(txn);
        }
        if (!mute) {
            send(execute.client(), outcome);
        }
    }

    /**
     * As a real node's apply loop does with an ABANDON (every copy answered alike): a transaction executed somewhere
     * stands, with its outcome; the others are done with no effect here.
     */
    private void settle(Abandon abandon) {
        List<Long> abandoned = new ArrayList<>();
        List<CallOutcome> stood = new ArrayList<>();
        for (long txn : abandon.transactions()) {
            CallOutcome outcome = bus.outcomes.get(txn);
            if (outcome != null) {
                stood.add(outcome);
            } else {
                abandoned.add(txn);
                bus.abandoned.add(txn);
                makeVisible(txn);
                for (FakeNode other : bus.nodes) {
                    if (other != this) {
                        other.inbox.add(new Visible(txn)); // the settlement is in the log: every site's nodes read it
                    }
                }
            }
        }
        flushProgress();
        Settlement settlement = new Settlement(
                name,
                abandon.origin(),
                abandoned.stream().mapToLong(Long::longValue).toArray(),
                stood,
                new long[0]);
        send(scheduler, settlement);
        if (repeatSettlements) {
            send(scheduler, settlement);
        }
    }

    private void makeVisible(long txn) {
        if (visible.add(txn)) {
            addProgress(txn);
        }
    }

    private void addProgress(long txn) {
        if (forgetting) {
            forgotten++;
            return;
        }
        progressBuffer[progressCount++] = txn;
        if (progressCount == progressBuffer.length) {
            flushProgress();
        }
    }

    private void flushProgress() {
        if (progressCount > 0 && scheduler != null) {
            long[] ids = java.util.Arrays.copyOf(progressBuffer, progressCount);
            progressCount = 0;
            send(scheduler, new Progress(name, ids));
        }
        if (forgotten > 0 && !forgetting && scheduler != null) {
            send(scheduler, new Progress(name, new long[0], 0, forgotten));
            forgotten = 0;
        }
    }

    private void send(Address target, Message message) {
        if (target == null) {
            return;
        }
        try {
            channel.send(new BytesMessage(target, WireCodec.encode(message)));
        } catch (Exception e) {
            if (running) {
                bus.violations.add(name + ": cannot send " + message.type() + ": " + e);
            }
        }
    }
}
