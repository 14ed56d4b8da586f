package org.gargamel.simulator;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.WriteKeyBuffer;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.random.TpccRandom;
import org.gargamel.tpcc.workload.TerminalContext;
import org.gargamel.tpcc.workload.TransactionMix;
import org.gargamel.tpcc.workload.TransactionType;

/**
 * One simulated run (thesis ch. 5): TPC-C terminals, the real scheduler core ({@link Scheduler}: the same classifier,
 * conflict index, chains and worker choice as {@code gargamel scheduler}), and simulated replicas, network and
 * write-set log.
 *
 * <p>A replica has workers, each running its queue of calls in order, a call starting once its back-dependencies are
 * visible at that replica (executed there, or their write-sets applied there), and one apply loop applying the log's
 * write-sets in log order. Executes and applies are CPU bursts on the replica's cores (or the shared host's): the
 * costs of the {@link CostModel}. An update's write-set is committed in the log a few messages later (Raft: to the
 * leader, to the followers, back) and then delivered to every replica; the client hears the outcome once its own
 * replica's apply loop meets the entry, as with the real node (behind the write-sets of others before it). A replica tells the scheduler what became visible there a progress batch later, and the scheduler forgets a
 * transaction once every replica has.
 *
 * <p>Round-robin: calls go to the workers in turn with no dependencies; an update is certified when the log commits it
 * (first committer wins on the keys its rules name, against the write-sets committed after the snapshot it ran on),
 * commits at its replica when its own entry reaches that replica's apply loop (SI commits in log order), and a loser
 * runs again at once on the same worker (a conflict abort, transparent to the client). Centralized: the scheduler puts
 * every update on one worker.
 */
final class Simulation {
    private static final long SEED_STRIDE = 0x9E3779B97F4A7C15L;
    /** A replica reports what became visible every 20 ms (ProgressReporter.INTERVAL_MILLIS): half of it on average. */
    private static final double PROGRESS_BATCH_MS = 10.0;
    /** Raft: the origin to the leader, the leader to the followers, their acknowledgements back. */
    private static final int LOG_COMMIT_HOPS = 3;
    /** How long after the measurement the calls begun in it may take to finish. */
    private static final double DRAIN_MS = 5_000;

    private final SimulationSettings settings;
    private final CostModel costs;
    private final ClassifierRules rules;
    private final Scheduler scheduler;
    private final EventLoop events = new EventLoop();
    private final CpuPool host;
    private final CpuPool schedulerCpu;
    private final List<Replica> replicas = new ArrayList<>();
    private final Map<String, Replica> replicasByName = new HashMap<>();
    private final WriteKeyBuffer keys = new WriteKeyBuffer();
    private long nextLogIndex;
    /** Round-robin certification: the last log index that wrote each key prefix. */
    private final RowKeys.Marks lastWrites = new RowKeys.Marks(Math::max);

    private final double measureFrom;
    private final double measureTo;
    private long newOrders;
    private long finished;
    private long conflictAborts;
    private long rejected;
    private double[] latencies = new double[1024];
    private int latencyCount;

    Simulation(SimulationSettings settings, CostModel costs) {
        this.settings = settings;
        this.costs = costs;
        this.rules =
                ClassifierRules.loadResource(TpccRules.class, settings.rules().resource());
        this.scheduler = new Scheduler(rules, settings.mode(), isolation());
        SimulationSettings.Machine machine = settings.machine();
        this.host = machine.shared() ? new CpuPool(events, machine.cores()) : null;
        this.schedulerCpu = machine.shared() ? host : new CpuPool(events, machine.cores());
        for (int i = 1; i <= settings.replicas(); i++) {
            Replica replica = new Replica("node-" + i, machine.shared() ? host : new CpuPool(events, machine.cores()));
            replicas.add(replica);
            replicasByName.put(replica.name, replica);
            scheduler.addNode(replica.name, settings.workers());
        }
        this.measureFrom = settings.warmupSeconds() * 1000;
        this.measureTo = measureFrom + settings.durationSeconds() * 1000;
    }

    private Isolation isolation() {
        return settings.mode() == Mode.ROUND_ROBIN ? Isolation.SI : Isolation.PSI;
    }

    SimulatedRun run() {
        NURandConstants load = NURandConstants.forLoad(new SplittableRandom(settings.seed()));
        NURandConstants run = NURandConstants.forRun(load, new SplittableRandom(settings.seed() + 1));
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        for (int i = 0; i < settings.terminals(); i++) {
            int warehouse = i % settings.warehouses() + 1;
            int district = (i / settings.warehouses()) % TerminalContext.DISTRICTS_PER_WAREHOUSE + 1;
            TpccRandom random = new TpccRandom(settings.seed() + SEED_STRIDE * (i + 1), run);
            Terminal terminal =
                    new Terminal(new TerminalContext(random, warehouse, district, settings.warehouses(), clock));
            events.after(0.01 * i, terminal::next); // not all in the same instant
        }
        double[] busyAt = new double[2];
        events.after(measureFrom, () -> busyAt[0] = busyMs());
        events.after(measureTo, () -> busyAt[1] = busyMs());
        events.runUntil(measureTo + DRAIN_MS);
        double seconds = settings.durationSeconds();
        double[] sorted = Arrays.copyOf(latencies, latencyCount);
        Arrays.sort(sorted);
        double cores = host != null
                ? host.capacity()
                : settings.replicas() * settings.machine().cores();
        return new SimulatedRun(
                settings.mode(),
                settings.replicas(),
                settings.terminals(),
                settings.warehouses(),
                newOrders / (seconds / 60),
                finished / seconds,
                conflictAborts,
                rejected,
                percentile(sorted, 50),
                percentile(sorted, 99),
                (busyAt[1] - busyAt[0]) / ((measureTo - measureFrom) * cores));
    }

    /** CPU handed out so far on the replicas' machines (or the shared host). */
    private double busyMs() {
        return host != null
                ? host.busyMs()
                : replicas.stream().mapToDouble(r -> r.cpu.busyMs()).sum();
    }

    private static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** One call on its way: what it is, where it was placed, and when its terminal sent it. */
    private final class Call {
        final Terminal terminal;
        final TransactionType type;
        final ProcedureCall procedureCall;
        final CostModel.ProcedureCost cost;
        final double sentAt;
        Placement placement;
        /** Round-robin: the keys it writes, and the last log index applied where it ran when it started. */
        String[][] writtenKeys;
        /** Parallel apply: the rows it writes. */
        String[][] rows;

        long snapshot;

        Call(Terminal terminal, TransactionType type, ProcedureCall call) {
            this.terminal = terminal;
            this.type = type;
            this.procedureCall = call;
            this.cost = costs.cost(call.procedure());
            this.sentAt = events.now();
        }

        boolean readOnly() {
            return placement.readOnly();
        }

        long txn() {
            return placement.txn();
        }
    }

    /** A closed-loop terminal: sends a call, waits for its outcome, sends the next (no keying or think time). */
    private final class Terminal {
        final TerminalContext context;
        final TransactionMix mix;

        Terminal(TerminalContext context) {
            this.context = context;
            this.mix = new TransactionMix(context.random());
        }

        void next() {
            if (events.now() >= measureTo) {
                return;
            }
            TransactionType type = mix.next();
            Call call = new Call(this, type, TransactionMix.generate(type, context));
            Runnable send = () -> events.after(settings.hopMs(), () -> schedule(call));
            if (host != null) {
                host.run(costs.clientCpuMs(), send);
            } else {
                send.run();
            }
        }

        void answered(Call call) {
            if (call.sentAt >= measureFrom && call.sentAt < measureTo) {
                finished++;
                if (call.type == TransactionType.NEW_ORDER) {
                    newOrders++;
                }
                if (latencyCount == latencies.length) {
                    latencies = Arrays.copyOf(latencies, latencies.length * 2);
                }
                latencies[latencyCount++] = events.now() - call.sentAt;
            }
            next();
        }
    }

    /** The scheduler: its CPU per call (its event loop and JGroups' threads), then the real core places the call. */
    private void schedule(Call call) {
        schedulerCpu.run(costs.schedulerCpuMs(), () -> place(call));
    }

    private void place(Call call) {
        try {
            call.placement = scheduler.place(call.procedureCall);
        } catch (RuntimeException e) {
            rejected++; // the kit's calls always fit its rules: counted, so that a wrong rule shows
            events.after(settings.hopMs(), () -> call.terminal.next());
            return;
        }
        if (settings.mode() == Mode.ROUND_ROBIN && !call.readOnly()) {
            call.writtenKeys = writtenKeys(call.procedureCall);
        }
        Replica replica = replicasByName.get(call.placement.worker().node());
        Worker worker = replica.workers[call.placement.worker().index()];
        events.after(settings.hopMs(), () -> worker.enqueue(call));
    }

    /** The rows a call's rules say it writes (for parallel apply), computed once. */
    private String[][] rowsOf(Call call) {
        if (call.rows == null) {
            keys.clear();
            rules.writeKeys(call.procedureCall, Isolation.PSI, keys);
            call.rows = RowKeys.of(keys);
        }
        return call.rows;
    }

    /** The keys a call's rules say it writes (SI: what certification compares). */
    private String[][] writtenKeys(ProcedureCall call) {
        keys.clear();
        rules.conflictKeys(call, Isolation.SI, keys);
        return RowKeys.of(keys);
    }

    /** First committer wins: whether no write-set committed after {@code call}'s snapshot wrote what it writes. */
    private boolean certify(Call call, long index) {
        if (lastWrites.meets(call.writtenKeys, last -> last > call.snapshot)) {
            return false;
        }
        lastWrites.mark(call.writtenKeys, index);
        return true;
    }

    /** The write-set log: an entry commits a few messages after it is sent and is then delivered to every replica. */
    private void append(Call call, Replica origin) {
        events.after(LOG_COMMIT_HOPS * settings.hopMs(), () -> {
            long index = ++nextLogIndex;
            boolean committed = settings.mode() != Mode.ROUND_ROBIN || certify(call, index);
            LogEntry entry = new LogEntry(index, call, origin, committed);
            for (Replica replica : replicas) {
                events.after(settings.hopMs(), () -> replica.deliver(entry));
            }
        });
    }

    private record LogEntry(long index, Call call, Replica origin, boolean committed) {}

    private void reply(Call call) {
        events.after(settings.hopMs(), () -> call.terminal.answered(call));
    }

    private void reportVisible(Replica replica, long txn) {
        events.after(PROGRESS_BATCH_MS + settings.hopMs(), () -> scheduler.reportVisible(replica.name, txn));
    }

    private final class Replica {
        final String name;
        final CpuPool cpu;
        final Worker[] workers;
        final BitSet visible = new BitSet();
        final ArrayDeque<LogEntry> toApply = new ArrayDeque<>();
        /** The rows of the write-sets being applied (parallel apply). */
        final RowKeys.Marks rowsInFlight = new RowKeys.Marks(Long::sum);

        int applying;
        long appliedIndex;

        Replica(String name, CpuPool cpu) {
            this.name = name;
            this.cpu = cpu;
            this.workers = new Worker[settings.workers()];
            for (int i = 0; i < workers.length; i++) {
                workers[i] = new Worker(this);
            }
        }

        void deliver(LogEntry entry) {
            toApply.add(entry);
            applyNext();
        }

        /** Applies the log's entries in order, one at a time; its own entries cost nothing (they ran here). */
        void applyNext() {
            while (!toApply.isEmpty()) {
                if (applying >= appliers()) {
                    return; // every applier busy (one applier: the log is applied strictly one entry at a time)
                }
                LogEntry entry = toApply.peek();
                if (entry.origin == this) {
                    // Its own entry: the call ran here already. The client hears COMMITTED only now, once the apply
                    // loop meets the entry (behind the other replicas' write-sets before it in the log).
                    toApply.poll();
                    appliedIndex = entry.index;
                    if (settings.mode() == Mode.ROUND_ROBIN) {
                        workerOf(entry.call).certified(entry.call, entry.committed);
                    } else {
                        reply(entry.call);
                    }
                    continue;
                }
                if (!entry.committed) {
                    toApply.poll();
                    appliedIndex = entry.index;
                    continue;
                }
                String[][] rows = appliers() > 1 ? rowsOf(entry.call) : null;
                if (rows != null
                        && (!dependenciesVisible(entry.call) || rowsInFlight.meets(rows, applying -> applying > 0))) {
                    return; // C5: waits until no earlier write-set on one of its rows is applying; woken when one ends
                }
                toApply.poll();
                applying++;
                if (rows != null) {
                    rowsInFlight.mark(rows, 1);
                }
                double applyCpu = (entry.call.cost.applyCpuMs() + costs.replicaOverheadCpuMs()) * settings.applyScale();
                cpu.run(applyCpu, () -> {
                    applying--;
                    if (rows != null) {
                        rowsInFlight.mark(rows, -1);
                    }
                    appliedIndex = Math.max(appliedIndex, entry.index);
                    madeVisible(entry.call.txn());
                    applyNext();
                });
            }
        }

        /** Round-robin's SI commits in log order: one applier whatever was asked. */
        private int appliers() {
            return settings.mode() == Mode.ROUND_ROBIN ? 1 : settings.appliers();
        }

        private boolean dependenciesVisible(Call call) {
            for (long dependency : call.placement.backDependencies()) {
                if (!visible.get((int) dependency)) {
                    return false;
                }
            }
            return true;
        }

        Worker workerOf(Call call) {
            return workers[call.placement.worker().index()];
        }

        void madeVisible(long txn) {
            visible.set((int) txn);
            reportVisible(this, txn);
            for (Worker worker : workers) {
                worker.startNext();
            }
        }
    }

    private final class Worker {
        final Replica replica;
        final ArrayDeque<Call> queue = new ArrayDeque<>();
        boolean busy;

        Worker(Replica replica) {
            this.replica = replica;
        }

        void enqueue(Call call) {
            queue.add(call);
            startNext();
        }

        /** Starts the next call of the chain once its back-dependencies are visible here. */
        void startNext() {
            Call next = queue.peek();
            if (busy || next == null) {
                return;
            }
            for (long dependency : next.placement.backDependencies()) {
                if (!replica.visible.get((int) dependency)) {
                    return; // woken when it becomes visible
                }
            }
            queue.poll();
            busy = true;
            execute(next);
        }

        void execute(Call call) {
            call.snapshot = replica.appliedIndex;
            double cpu = call.cost.executeCpuMs() + (call.readOnly() ? 0 : costs.replicaOverheadCpuMs());
            replica.cpu.run(cpu, () -> executed(call));
        }

        void executed(Call call) {
            if (call.readOnly()) {
                busy = false;
                reportVisible(replica, call.txn());
                reply(call);
                startNext();
            } else if (settings.mode() == Mode.ROUND_ROBIN) {
                append(call, replica); // the worker waits for its certification (SI: commits in log order)
            } else {
                busy = false;
                append(call, replica);
                replica.madeVisible(call.txn()); // PSI commits at once at its replica
            }
        }

        /** Round-robin: this worker's call was certified (it commits) or not (it runs again). */
        void certified(Call call, boolean committed) {
            if (committed) {
                busy = false;
                reply(call);
                replica.madeVisible(call.txn());
            } else {
                if (call.sentAt >= measureFrom && call.sentAt < measureTo) {
                    conflictAborts++;
                }
                execute(call);
            }
        }
    }
}
