package org.gargamel.scheduler.bench;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.wire.SubmitCall;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.tpcc.TpccRules;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The scheduler core on the TPC-C mix at 10 warehouses (PSI, 3 nodes of 4 workers), {@code inflight}
 * transactions in flight.
 * <ul>
 * <li>{@code placeCall}: what one call costs on the scheduler's critical path: check, write keys, conflict
 * index, worker choice. After each operation, untimed, every node reports the oldest in-flight transaction
 * (which collects it): those reports are separate events of the scheduler, not part of placing a call.</li>
 * <li>{@code placeAndRetireOldest}: both, timed together (the scheduler's whole work per call).</li>
 * </ul>
 * Run: {@code scripts/bench-scheduler} (prints {@code inflight=N p50_us=X p99_us=Y} per size for placeCall,
 * then the same for the combined operation).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
// A fixed, pre-touched heap, as a long-running scheduler's is (see ConflictIndexBenchmark and docs/classifier.md:
// first touches of a growing heap otherwise land in the p99).
@Fork(
        value = 1,
        jvmArgs = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class SchedulerBenchmark {
    private static final int WAREHOUSES = 10;
    private static final int DISTINCT_CALLS = 1 << 16;
    private static final String[] NODES = {"node-1", "node-2", "node-3"};
    private static final int WORKERS = 4;

    /** A scheduler with {@code inflight} transactions in flight, kept in a FIFO ring of size inflight + 1. */
    @State(Scope.Thread)
    public static class Loaded {
        @Param({"100", "1000", "10000", "100000"})
        public int inflight;

        /** The calls as they arrive: encoded SubmitCall messages. */
        private List<byte[]> messages;

        private ProcedureCall nextCall;
        private Scheduler scheduler;
        private Placement[] ring;
        private int head;
        private int tail;
        private int next;

        @Setup(Level.Trial)
        public void setUp() {
            messages = new ArrayList<>(DISTINCT_CALLS);
            for (ProcedureCall call : tpccMix(new SplittableRandom(42), DISTINCT_CALLS)) {
                messages.add(WireCodec.encode(new SubmitCall(messages.size(), call)));
            }
            scheduler = new Scheduler(
                    ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE),
                    org.gargamel.common.config.Mode.GARGAMEL,
                    Isolation.PSI);
            for (String node : NODES) {
                scheduler.addNode(node, WORKERS);
            }
            ring = new Placement[inflight + 1];
            head = 0;
            tail = 0;
            next = 0;
            for (int i = 0; i < inflight; i++) {
                decodeNext();
                place();
            }
            if (scheduler.inFlight() != inflight) {
                throw new IllegalStateException("in flight: " + scheduler.inFlight() + ", expected " + inflight);
            }
        }

        /**
         * Untimed: decodes the next call from its message, as the scheduler's event loop does just before placing it,
         * so the call is as fresh in the cache as there. (Placing calls of 65,536 objects built in advance read every
         * argument from cold memory, a cost the scheduler never has.)
         */
        @Setup(Level.Invocation)
        public void decodeNext() {
            nextCall = ((SubmitCall) WireCodec.decode(messages.get(next & (DISTINCT_CALLS - 1)))).call();
        }

        Placement place() {
            next++;
            Placement placement = scheduler.place(nextCall);
            ring[tail] = placement;
            tail = tail + 1 == ring.length ? 0 : tail + 1;
            return placement;
        }

        /** Every node reports the oldest transaction in flight, which collects it. */
        void retireOldest() {
            Placement oldest = ring[head];
            ring[head] = null;
            head = head + 1 == ring.length ? 0 : head + 1;
            for (String node : NODES) {
                scheduler.reportVisible(node, oldest.txn());
            }
        }
    }

    /** Retires the oldest transaction after each operation, outside the timed region. */
    public static class Retiring extends Loaded {
        @TearDown(Level.Invocation)
        public void retireAfterTiming() {
            retireOldest();
        }
    }

    @Benchmark
    public Placement placeCall(Retiring state) {
        return state.place();
    }

    @Benchmark
    public Placement placeAndRetireOldest(Loaded state) {
        Placement placement = state.place();
        state.retireOldest();
        return placement;
    }

    /** A TPC-C mix (45/43/4/4/4 New-Order/Payment/Order-Status/Delivery/Stock-Level) over 10 warehouses. */
    public static List<ProcedureCall> tpccMix(SplittableRandom random, int count) {
        LocalDateTime now = LocalDateTime.of(2026, 1, 1, 10, 0);
        List<ProcedureCall> result = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int w = random.nextInt(1, WAREHOUSES + 1);
            int d = random.nextInt(1, 11);
            int kind = random.nextInt(100);
            if (kind < 45) {
                int lines = random.nextInt(5, 16);
                List<Integer> items = new ArrayList<>();
                List<Integer> supply = new ArrayList<>();
                List<Integer> quantities = new ArrayList<>();
                for (int line = 0; line < lines; line++) {
                    items.add(random.nextInt(1, 100_001));
                    supply.add(random.nextInt(100) == 0 ? random.nextInt(1, WAREHOUSES + 1) : w);
                    quantities.add(5);
                }
                result.add(
                        ProcedureCall.of("new_order", w, d, random.nextInt(1, 3001), items, supply, quantities, now));
            } else if (kind < 88) {
                int cw = random.nextInt(100) < 15 ? random.nextInt(1, WAREHOUSES + 1) : w;
                boolean byName = random.nextInt(100) < 60;
                result.add(ProcedureCall.of(
                        "payment",
                        w,
                        d,
                        cw,
                        random.nextInt(1, 11),
                        byName ? null : random.nextInt(1, 3001),
                        byName ? "BARBARABLE" : null,
                        new BigDecimal("10.00"),
                        now));
            } else if (kind < 92) {
                result.add(ProcedureCall.of("order_status", w, d, random.nextInt(1, 3001), null));
            } else if (kind < 96) {
                result.add(ProcedureCall.of("delivery", w, 1, now));
            } else {
                result.add(ProcedureCall.of("stock_level", w, d, 15));
            }
        }
        return result;
    }

    /** Runs JMH (JMH command-line options are accepted) and prints one line per in-flight size. */
    public static void main(String[] args) throws Exception {
        List<String> jmhArgs = new ArrayList<>(List.of(args));
        boolean endToEnd = !jmhArgs.remove("--no-end-to-end");
        boolean jmh = !jmhArgs.remove("--end-to-end-only");
        if (jmh) {
            runJmh(jmhArgs.toArray(String[]::new));
        }
        if (endToEnd) {
            double rate = EndToEndRate.measure(java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(10));
            System.out.printf(
                    "end_to_end_calls_per_s=%.0f (TPC-C mix, 1 client, JGroups TCP on 127.0.0.1, "
                            + "3 no-op fake nodes x 4 workers, %s=%s)%n",
                    rate,
                    org.gargamel.common.group.Channels.BUNDLER_VARIABLE,
                    System.getenv().getOrDefault(org.gargamel.common.group.Channels.BUNDLER_VARIABLE, "unset"));
        }
    }

    private static void runJmh(String[] args) throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                        .parent(new CommandLineOptions(args))
                        .include(SchedulerBenchmark.class.getName() + ".(placeCall|placeAndRetireOldest)$")
                        .build())
                .run();
        List<RunResult> sorted = new ArrayList<>(results);
        sorted.sort(java.util.Comparator.comparing(
                        (RunResult r) -> !r.getParams().getBenchmark().endsWith("placeCall"))
                .thenComparingInt(r -> Integer.parseInt(r.getParams().getParam("inflight"))));
        for (RunResult result : sorted) {
            var statistics = result.getPrimaryResult().getStatistics();
            String benchmark = result.getParams().getBenchmark();
            System.out.printf(
                    "inflight=%s p50_us=%.2f p99_us=%.2f%s%n",
                    result.getParams().getParam("inflight"),
                    statistics.getPercentile(50),
                    statistics.getPercentile(99),
                    benchmark.endsWith("placeCall") ? "" : " (place + retire the oldest, timed together)");
        }
    }
}
