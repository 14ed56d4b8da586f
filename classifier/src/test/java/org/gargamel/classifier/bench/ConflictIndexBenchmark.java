package org.gargamel.classifier.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.WriteKey;
import org.gargamel.classifier.WriteKeyBuffer;
import org.gargamel.classifier.index.ConflictIndex;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
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
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The conflict index on the TPC-C mix at 10 warehouses, holding {@code inflight} transactions.
 * <ul>
 * <li>{@code lookupAndInsert}: what a call waits for on the scheduler's critical path, its back-dependencies
 * and its insert; the oldest call is retired after each operation, outside the timed region (the scheduler
 * retires calls when replicas report them applied, not while scheduling one).</li>
 * <li>{@code addAndRetireOldest}: both, timed together: the index's whole work per call.</li>
 * </ul>
 * Run: {@code scripts/bench-classifier} (prints bytes per in-flight transaction, then JMH's percentiles); with
 * arguments, they are JMH's options instead ({@code -h}; e.g. {@code lookupAndInsert -p inflight=10000 -p
 * rules=table61}), and the memory measurement is skipped.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
// A fixed, pre-touched heap: the scheduler is a long-running server, whose heap has long been grown and
// touched. With only -Xmx, the heap keeps growing during the short trial and first touches of new eden
// pages (page faults) land in about 1% of the operations, i.e. the measured p99 (seen with -Xlog:gc and
// against Epsilon GC). The operation measured is unchanged.
@Fork(
        value = 1,
        jvmArgs = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class ConflictIndexBenchmark {
    private static final int WAREHOUSES = 10;
    private static final int DISTINCT_CALLS = 1 << 16;

    /** An index filled with {@code inflight} calls of the mix; {@link #insertNext} keeps adding the next one. */
    @State(Scope.Thread)
    public static class FilledIndex {
        @Param({"1000", "10000", "100000"})
        public int inflight;

        /** The kit's rules: commutative (increments SHARED, the default) or table61 (the thesis's, all EXCLUSIVE). */
        @Param({"commutative"})
        public String rules;

        ClassifierRules classifierRules;
        List<ProcedureCall> calls;
        ConflictIndex index;
        /** The next call's keys, resolved into a reused buffer as the scheduler resolves them. */
        final WriteKeyBuffer nextKeys = new WriteKeyBuffer();

        long next;
        long oldest;

        @Setup(Level.Trial)
        public void setUp() {
            classifierRules = ClassifierRules.loadResource(
                    TpccRules.class,
                    TpccRules.Variant.valueOf(rules.toUpperCase(java.util.Locale.ROOT))
                            .resource());
            calls = tpccMix(new SplittableRandom(42), DISTINCT_CALLS);
            index = new ConflictIndex(classifierRules::wildcardPossible);
            for (next = 0; next < inflight; next++) {
                buildNextKeys();
                index.add(next, nextKeys);
            }
            oldest = 0;
        }

        /**
         * Untimed: the next call's write keys, built just before the operation as the scheduler builds them
         * just before its lookup, so they are as fresh in the cache as there. (Keys of 65,536 calls built in
         * advance, some 60 MB, made every key read of the operation a cache miss the scheduler never has.)
         */
        @Setup(Level.Invocation)
        public void buildNextKeys() {
            classifierRules.conflictKeys(calls.get((int) (next % DISTINCT_CALLS)), Isolation.PSI, nextKeys);
        }

        long[] insertNext() {
            return index.add(next++, nextKeys);
        }

        void retireOldest() {
            index.remove(oldest++);
        }
    }

    /** Retires the oldest call after each operation, outside the timed region. */
    public static class CriticalPath extends FilledIndex {
        @TearDown(Level.Invocation)
        public void retireAfterTiming() {
            retireOldest();
        }
    }

    @Benchmark
    public long[] lookupAndInsert(CriticalPath state) {
        return state.insertNext();
    }

    @Benchmark
    public long[] addAndRetireOldest(FilledIndex state) {
        long[] dependencies = state.insertNext();
        state.retireOldest();
        return dependencies;
    }

    /** Calls of a TPC-C mix (45/43/4/4/4) over {@link #WAREHOUSES} warehouses. */
    static List<ProcedureCall> tpccMix(SplittableRandom random, int count) {
        java.time.LocalDateTime now = java.time.LocalDateTime.of(2026, 1, 1, 10, 0);
        List<ProcedureCall> result = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int w = random.nextInt(1, WAREHOUSES + 1);
            int d = random.nextInt(1, 11);
            int kind = random.nextInt(100);
            ProcedureCall call;
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
                call = ProcedureCall.of("new_order", w, d, random.nextInt(1, 3001), items, supply, quantities, now);
            } else if (kind < 88) {
                int cw = random.nextInt(100) < 15 ? random.nextInt(1, WAREHOUSES + 1) : w;
                boolean byName = random.nextInt(100) < 60;
                call = ProcedureCall.of(
                        "payment",
                        w,
                        d,
                        cw,
                        random.nextInt(1, 11),
                        byName ? null : random.nextInt(1, 3001),
                        byName ? "BARBARABLE" : null,
                        new java.math.BigDecimal("10.00"),
                        now);
            } else if (kind < 92) {
                call = ProcedureCall.of("delivery", w, 1, now);
            } else if (kind < 96) {
                call = ProcedureCall.of("order_status", w, d, 1, null);
            } else {
                call = ProcedureCall.of("stock_level", w, d, 15);
            }
            result.add(call);
        }
        return result;
    }

    /** Heap per in-flight transaction: the index filled to {@code inflight}, measured after full GCs. */
    static long bytesPerTransaction(int inflight) {
        ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
        List<List<WriteKey>> keys = new ArrayList<>();
        for (ProcedureCall call : tpccMix(new SplittableRandom(7), DISTINCT_CALLS)) {
            keys.add(rules.conflictKeys(call, Isolation.PSI));
        }
        Runtime runtime = Runtime.getRuntime();
        long before = usedAfterGc(runtime);
        ConflictIndex index = new ConflictIndex(rules::wildcardPossible);
        long after;
        try {
            for (int t = 0; t < inflight; t++) {
                index.add(t, keys.get(t % DISTINCT_CALLS));
            }
            after = usedAfterGc(runtime);
        } finally {
            // The call mix stays reachable until here: once the filling loop is done, compiled code may
            // otherwise treat it as dead and free it during the second measurement (a negative result).
            java.lang.ref.Reference.reachabilityFence(keys);
        }
        if (index.size() != inflight) {
            throw new IllegalStateException("index holds " + index.size() + " transactions, expected " + inflight);
        }
        return (after - before) / inflight;
    }

    private static long usedAfterGc(Runtime runtime) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            org.openjdk.jmh.Main.main(args);
            return;
        }
        for (int inflight : new int[] {1_000, 10_000, 100_000}) {
            System.out.printf("inflight=%d bytes_per_txn=%d%n", inflight, bytesPerTransaction(inflight));
        }
        new Runner(new OptionsBuilder()
                        .include(ConflictIndexBenchmark.class.getSimpleName())
                        .build())
                .run();
    }
}
