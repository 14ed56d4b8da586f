package org.gargamel.tpcc.terminal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.tpcc.check.NewOrderLedger;
import org.gargamel.tpcc.random.TpccRandom;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.ExecutionOutcome;
import org.gargamel.tpcc.workload.TerminalContext;
import org.gargamel.tpcc.workload.TransactionMix;
import org.gargamel.tpcc.workload.TransactionType;

/**
 * Emulates TPC-C terminals (clause 5): closed-loop terminals bound to a home warehouse, or an open loop
 * of calls at a fixed rate. Each terminal thread owns its executor (a connection) and its random stream.
 */
public final class TerminalEmulator {
    private static final long SEED_STRIDE = 0x9E3779B97F4A7C15L;
    /** How often an idle open-loop worker looks whether the arrivals are over. */
    private static final long POLL_MILLIS = 20;

    private final RunSettings settings;
    private final IntFunction<CallExecutor> executors;
    private final NewOrderLedger ledger = new NewOrderLedger();
    private volatile boolean stopped;
    private volatile long measuredNanos;
    private Runnable atMeasurementStart = () -> {};

    /** {@code executors} opens the executor of terminal {@code i}; it is closed when the terminal ends. */
    public TerminalEmulator(RunSettings settings, IntFunction<CallExecutor> executors) {
        this.settings = settings;
        this.executors = executors;
    }

    /**
     * Runs {@code action} once, on a thread of its own, when the warm-up ends and the measurement interval begins (a
     * reading of the machine's CPU, say). Before {@link #run()}.
     */
    public TerminalEmulator atMeasurementStart(Runnable action) {
        this.atMeasurementStart = action;
        return this;
    }

    /** Ends the run early (Ctrl-C); the calls in progress finish and are counted. */
    public void stop() {
        stopped = true;
    }

    /** Every New-Order acknowledged to a terminal in this run (warm-up included), for the durability check. */
    public NewOrderLedger ledger() {
        return ledger;
    }

    /** Wall time of the measurement interval (after the warm-up), known after {@link #run()} returns. */
    public double measuredSeconds() {
        return measuredNanos / 1e9;
    }

    /**
     * Runs for the warm-up and then the measurement interval (or until stopped) and returns the merged statistics of
     * the calls that began in the measurement interval.
     */
    public RunStatistics run() {
        List<CallExecutor> opened = new ArrayList<>();
        try {
            for (int i = 0; i < settings.terminals(); i++) {
                opened.add(executors.apply(i));
            }
            return settings.rate() == null ? closedLoop(opened) : openLoop(opened);
        } finally {
            for (CallExecutor executor : opened) {
                executor.close();
            }
        }
    }

    private TerminalContext context(int terminal) {
        int warehouse = terminal % settings.warehouses() + 1;
        int district = (terminal / settings.warehouses()) % TerminalContext.DISTRICTS_PER_WAREHOUSE + 1;
        TpccRandom random = new TpccRandom(settings.seed() + SEED_STRIDE * (terminal + 1), settings.runConstants());
        return new TerminalContext(random, warehouse, district, settings.warehouses(), settings.clock());
    }

    private RunStatistics closedLoop(List<CallExecutor> executors) {
        List<RunStatistics> perTerminal = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long measureFrom = System.nanoTime() + settings.warmup().toNanos();
        long deadline = measureFrom + settings.duration().toNanos();
        startMeasurementAt(measureFrom);
        for (int i = 0; i < executors.size(); i++) {
            RunStatistics statistics = new RunStatistics();
            perTerminal.add(statistics);
            TerminalContext terminal = context(i);
            CallExecutor executor = executors.get(i);
            Thread thread = new Thread(
                    () -> closedLoopTerminal(terminal, executor, statistics, measureFrom, deadline),
                    "terminal-" + (i + 1));
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        joinAll(threads);
        measuredNanos = Math.max(0, Math.min(System.nanoTime(), deadline) - measureFrom);
        return merge(perTerminal);
    }

    /** Calls that begin before {@code measureFrom} (the warm-up) run but are not measured (failures still count). */
    private void closedLoopTerminal(
            TerminalContext terminal,
            CallExecutor executor,
            RunStatistics statistics,
            long measureFrom,
            long deadline) {
        TransactionMix mix = new TransactionMix(terminal.random());
        while (!stopped && System.nanoTime() < deadline) {
            TransactionType type = mix.next();
            if (settings.keyingAndThinkTimes()) {
                pauseUntil(Math.min(deadline, System.nanoTime() + KeyingAndThinkTimes.keyingNanos(type)));
            }
            ProcedureCall call = TransactionMix.generate(type, terminal);
            long begin = System.nanoTime();
            if (stopped || begin >= deadline) {
                break;
            }
            ExecutionOutcome outcome = executor.execute(call);
            recordInLedger(type, call, outcome);
            if (begin >= measureFrom) {
                statistics.record(type, outcome, System.nanoTime() - begin);
            } else {
                statistics.recordWarmUp(type, outcome);
            }
            if (settings.keyingAndThinkTimes()) {
                long think = KeyingAndThinkTimes.thinkNanos(type, terminal.random());
                pauseUntil(Math.min(deadline, System.nanoTime() + think));
            }
        }
    }

    /** A call of the open loop, with the time it should have started: its latency counts from then. */
    private record Arrival(TransactionType type, ProcedureCall call, long intendedStart) {}

    private RunStatistics openLoop(List<CallExecutor> executors) {
        BlockingQueue<Arrival> queue = new ArrayBlockingQueue<>(Math.max(16, executors.size() * 4));
        List<RunStatistics> perWorker = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        long measureFrom = start + settings.warmup().toNanos();
        long deadline = measureFrom + settings.duration().toNanos();
        startMeasurementAt(measureFrom);
        AtomicBoolean arrivalsDone = new AtomicBoolean();
        for (int i = 0; i < executors.size(); i++) {
            RunStatistics statistics = new RunStatistics();
            perWorker.add(statistics);
            CallExecutor executor = executors.get(i);
            Thread thread = new Thread(
                    () -> openLoopWorker(queue, executor, statistics, measureFrom, arrivalsDone),
                    "open-loop-worker-" + (i + 1));
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        RunStatistics arrivals = new RunStatistics();
        perWorker.add(arrivals);
        List<TerminalContext> terminals = new ArrayList<>();
        List<TransactionMix> mixes = new ArrayList<>();
        for (int i = 0; i < Math.max(settings.warehouses() * 10, executors.size()); i++) {
            TerminalContext terminal = context(i);
            terminals.add(terminal);
            mixes.add(new TransactionMix(terminal.random()));
        }
        double intervalNanos = 1e9 / settings.rate();
        for (long n = 0; !stopped; n++) {
            long intended = start + (long) (n * intervalNanos);
            if (intended >= deadline) {
                break;
            }
            pauseUntil(intended);
            int index = (int) (n % terminals.size());
            TransactionType type = mixes.get(index).next();
            Arrival arrival = new Arrival(type, TransactionMix.generate(type, terminals.get(index)), intended);
            if (!queue.offer(arrival) && intended >= measureFrom) {
                arrivals.recordDropped();
            }
        }
        arrivalsDone.set(true);
        joinAll(threads);
        measuredNanos = Math.max(0, Math.min(System.nanoTime(), deadline) - measureFrom);
        return merge(perWorker);
    }

    /**
     * Serves arrivals until the generator is done and the queue is empty: every arrival due before the deadline runs,
     * even one the generator made late (a loaded machine oversleeps), and its latency counts from its intended start.
     * Arrivals due before {@code measureFrom} (the warm-up) are served but not measured (failures still count).
     */
    private void openLoopWorker(
            BlockingQueue<Arrival> queue,
            CallExecutor executor,
            RunStatistics statistics,
            long measureFrom,
            AtomicBoolean arrivalsDone) {
        while (!stopped) {
            Arrival arrival;
            try {
                arrival = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (arrival == null) {
                if (arrivalsDone.get() && queue.isEmpty()) {
                    return;
                }
                continue;
            }
            ExecutionOutcome outcome = executor.execute(arrival.call());
            recordInLedger(arrival.type(), arrival.call(), outcome);
            if (arrival.intendedStart() >= measureFrom) {
                statistics.record(arrival.type(), outcome, System.nanoTime() - arrival.intendedStart());
            } else {
                statistics.recordWarmUp(arrival.type(), outcome);
            }
        }
    }

    /** A New-Order's outcome into the ledger: its order id when it committed, or that its outcome is unknown. */
    private void recordInLedger(TransactionType type, ProcedureCall call, ExecutionOutcome outcome) {
        if (type != TransactionType.NEW_ORDER) {
            return;
        }
        if (outcome.kind() == ExecutionOutcome.Kind.FAILED) {
            ledger.unknownOutcome();
        } else if (outcome.kind() == ExecutionOutcome.Kind.COMMITTED) {
            List<Object> arguments = call.arguments();
            Integer orderId = orderId(outcome.firstColumn());
            if (orderId == null) {
                ledger.acknowledgedWithoutOrderId();
            } else {
                ledger.acknowledged(
                        ((Number) arguments.get(0)).intValue(), ((Number) arguments.get(1)).intValue(), orderId);
            }
        }
    }

    /** The order id a New-Order returned, or null if its result holds none (an executor that returns no result). */
    private static Integer orderId(String firstColumn) {
        try {
            return firstColumn == null ? null : Integer.valueOf(firstColumn.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private void startMeasurementAt(long measureFrom) {
        Thread thread = new Thread(
                () -> {
                    pauseUntil(measureFrom);
                    if (!stopped) {
                        atMeasurementStart.run();
                    }
                },
                "measurement-start");
        thread.setDaemon(true);
        thread.start();
    }

    private void pauseUntil(long nanoTime) {
        long remaining;
        while (!stopped && (remaining = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(remaining, 50_000_000L));
        }
    }

    private static void joinAll(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static RunStatistics merge(List<RunStatistics> parts) {
        RunStatistics total = new RunStatistics();
        for (RunStatistics part : parts) {
            total.add(part);
        }
        return total;
    }
}
