package org.gargamel.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.DrainQuery;
import org.gargamel.common.wire.DrainStatus;
import org.gargamel.common.wire.Execute;
import org.gargamel.common.wire.MalformedMessageException;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Receiver;
import org.jgroups.View;

/**
 * The scheduler process (DESIGN.md §4): one event loop owns the {@link Scheduler} (graph, conflict index, workers);
 * JGroups receive threads only decode messages and enqueue them. Calls come from clients (SUBMIT_CALL) and go to
 * nodes (EXECUTE); nodes announce themselves (NODE_HELLO) and report what became visible (PROGRESS); clients ask
 * how much is still in flight (DRAIN_QUERY). A node that leaves the view has its unreported calls rejected.
 */
public final class SchedulerServer implements AutoCloseable {
    private static final int BATCH = 256;
    /** Events waiting for the loop. A full queue rejects new calls at once and makes nodes' reports wait. */
    private static final int QUEUE_CAPACITY = 1 << 16;

    private final SchedulerConfig config;
    private final Scheduler scheduler;
    private final GroupConfig group;
    private final BlockingQueue<Runnable> events = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final Map<Long, PendingCall> pending = new HashMap<>();
    private final Map<String, Address> nodes = new HashMap<>();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong scheduled = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private JChannel channel;
    /** The latest view, as seen by the loop: a NODE_HELLO from outside it is stale and ignored. */
    private View view;
    private Thread loop;
    private volatile boolean running;

    /** A call placed on a node and not yet reported by it: who to tell if the node leaves. */
    private record PendingCall(Address client, long callId, String node) {
    }

    public SchedulerServer(SchedulerConfig config) {
        this.config = config.validate();
        this.scheduler = new Scheduler(config.loadRules(), config.mode(), config.isolation());
        this.group = config.control().toGroupConfig("control");
    }

    public void start() throws Exception {
        start(channel -> { });
    }

    /**
     * Starts the loop and joins the control group; {@code beforeConnect} may change the channel first (tests insert
     * JGroups fault-injection protocols such as DISCARD and DELAY).
     */
    public void start(Consumer<JChannel> beforeConnect) throws Exception {
        running = true;
        loop = new Thread(this::runLoop, "scheduler-loop");
        loop.start();
        channel = Channels.schedulerControl(group, GargamelClient.SCHEDULER_NAME);
        channel.setReceiver(new Listener());
        beforeConnect.accept(channel);
        channel.connect(Channels.CONTROL_CLUSTER);
    }

    /** The scheduler's address in the control group (after {@link #start}). */
    public Address address() {
        return channel.getAddress();
    }

    public String describe() {
        return "scheduler " + channel.getAddress() + " at " + config.control().bind() + " (mode " + config.mode()
                + ", isolation " + config.isolation() + ")";
    }

    /** Calls scheduled so far, rejected so far, and malformed messages dropped (for the log and tests). */
    public long scheduledCount() {
        return scheduled.get();
    }

    public long rejectedCount() {
        return rejected.get();
    }

    public long malformedCount() {
        return malformed.get();
    }

    @Override
    public void close() {
        running = false;
        if (channel != null) {
            channel.close();
        }
        if (loop != null) {
            loop.interrupt();
            try {
                loop.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void runLoop() {
        List<Runnable> batch = new ArrayList<>(BATCH);
        while (running) {
            try {
                Runnable first = events.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                events.drainTo(batch, BATCH - 1);
                for (Runnable event : batch) {
                    try {
                        event.run();
                    } catch (RuntimeException e) {
                        System.err.println("gargamel scheduler: event failed: " + e);
                        e.printStackTrace(System.err);
                    }
                }
                batch.clear();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---- events, all on the loop thread ----

    private void onSubmit(Address client, SubmitCall submit) {
        if (scheduler.inFlight() >= config.maxInFlight()) {
            reject(client, submit.callId(), "overloaded: " + scheduler.inFlight() + " transactions in flight (maxInFlight "
                    + config.maxInFlight() + "); retry later");
            return;
        }
        Placement placement;
        try {
            placement = scheduler.place(submit.call());
        } catch (RejectedCallException e) {
            reject(client, submit.callId(), e.getMessage());
            return;
        }
        String node = placement.worker().node();
        Address target = nodes.get(node);
        pending.put(placement.txn(), new PendingCall(client, submit.callId(), node));
        scheduled.incrementAndGet();
        send(target, new Execute(placement.txn(), placement.worker().index(), placement.readOnly(),
                placement.backDependencies(), client, submit.callId(), submit.call()));
    }

    private void onHello(Address source, NodeHello hello) {
        if (view != null && !view.containsMember(source)) {
            return;  // it left after sending: accepting it would place calls on a departed node
        }
        if (hello.workers() < 1) {
            System.err.println("gargamel scheduler: ignored NODE_HELLO from " + hello.nodeName() + " with "
                    + hello.workers() + " workers");
            return;
        }
        Address previous = nodes.get(hello.nodeName());
        if (previous != null && !previous.equals(source)) {
            System.err.println("gargamel scheduler: ignored NODE_HELLO for " + hello.nodeName() + " from " + source
                    + ": that name belongs to " + previous);
            return;
        }
        try {
            scheduler.addNode(hello.nodeName(), hello.workers());
        } catch (RuntimeException e) {
            System.err.println("gargamel scheduler: ignored NODE_HELLO from " + source + ": " + e.getMessage());
            return;
        }
        nodes.put(hello.nodeName(), source);
        if (previous == null) {
            System.err.println("gargamel scheduler: " + hello.nodeName() + " joined with " + hello.workers() + " workers");
        }
    }

    private void onProgress(Address source, Progress progress) {
        String node = progress.nodeName();
        for (long txn : progress.visible()) {
            scheduler.reportVisible(node, txn);
            PendingCall call = pending.get(txn);
            if (call != null && call.node().equals(node)) {
                pending.remove(txn);
            }
        }
    }

    private void onDrain(Address source, DrainQuery query) {
        send(source, new DrainStatus(query.queryId(), scheduler.inFlight(), scheduler.nodeCount()));
    }

    private void onView(View view) {
        this.view = view;
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, Address> node : nodes.entrySet()) {
            if (!view.containsMember(node.getValue())) {
                gone.add(node.getKey());
            }
        }
        for (String node : gone) {
            nodes.remove(node);
            List<Placement> lost = scheduler.removeNode(node);
            System.err.println("gargamel scheduler: " + node + " left the cluster; rejecting " + lost.size()
                    + " call(s) it had not reported");
            for (Placement placement : lost) {
                PendingCall call = pending.remove(placement.txn());
                if (call != null) {
                    reject(call.client(), call.callId(), node + " left the cluster before reporting transaction "
                            + placement.txn() + "; its outcome is unknown (node recovery is on the roadmap)");
                }
            }
            abandon(node, lost);
        }
    }

    /**
     * Has the survivors settle, in their total order, the departed node's unreported update transactions: each counts
     * as done with no effect unless its write-set was delivered first, so calls that depend on it do not wait forever.
     * Every survivor broadcasts the decision (the scheduler is not in the write-set group): the first copy delivered
     * decides, the others change nothing, and one survivor leaving too cannot lose it.
     */
    private void abandon(String node, List<Placement> lost) {
        long[] updates = lost.stream().filter(placement -> !placement.readOnly()).mapToLong(Placement::txn).toArray();
        if (updates.length == 0 || nodes.isEmpty()) {
            return;
        }
        System.err.println("gargamel scheduler: asking " + nodes.keySet() + " to settle " + updates.length
                + " transaction(s) of " + node + " in the total order");
        Abandon decision = new Abandon(node, updates);
        for (Address survivor : nodes.values()) {
            send(survivor, decision);
        }
    }

    private void reject(Address client, long callId, String reason) {
        rejected.incrementAndGet();
        send(client, CallOutcome.rejected(callId, -1, reason));
    }

    private void send(Address target, Message message) {
        try {
            channel.send(new BytesMessage(target, WireCodec.encode(message)));
        } catch (Exception e) {
            if (running) {
                System.err.println("gargamel scheduler: cannot send " + message.type() + " to " + target + ": " + e);
            }
        }
    }

    private final class Listener implements Receiver {
        @Override
        public void receive(org.jgroups.Message message) {
            Address source = message.getSrc();
            Message decoded;
            try {
                decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
            } catch (MalformedMessageException e) {
                malformed.incrementAndGet();
                System.err.println("gargamel scheduler: dropped a malformed message from " + source + ": " + e.getMessage());
                return;
            }
            if (decoded instanceof SubmitCall submit) {
                if (!events.offer(() -> onSubmit(source, submit))) {
                    reject(source, submit.callId(), "overloaded: the scheduler's event queue is full (" + QUEUE_CAPACITY
                            + " events); retry later");
                }
            } else if (decoded instanceof NodeHello hello) {
                enqueue(() -> onHello(source, hello));
            } else if (decoded instanceof Progress progress) {
                enqueue(() -> onProgress(source, progress));
            } else if (decoded instanceof DrainQuery query) {
                enqueue(() -> onDrain(source, query));
            } else {
                malformed.incrementAndGet();
                System.err.println("gargamel scheduler: unexpected " + decoded.type() + " from " + source);
            }
        }

        @Override
        public void viewAccepted(View view) {
            enqueue(() -> onView(view));
        }

        /** Reports and views are never dropped: a full queue makes the sender's receive thread wait. */
        private void enqueue(Runnable event) {
            try {
                while (running && !events.offer(event, 100, TimeUnit.MILLISECONDS)) {
                    // the loop is behind; JGroups' flow control slows the senders down
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
