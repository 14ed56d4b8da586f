package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.gargamel.classifier.WriteKey;
import org.gargamel.scheduler.sites.LogOrderTerms.Placed;
import org.gargamel.scheduler.sites.LogOrderTerms.Verdict;
import org.gargamel.scheduler.sites.ProvisionalCall.Step;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Property test of multi-site scheduling: random two- and three-site workloads with random message delays, run as a
 * discrete-event simulation of the whole protocol. Each site has a {@link LogOrderAgreement} and one replica (a node with
 * as many workers as it needs) that runs its site's calls under {@link ProvisionalCall}. The schedule log hands its
 * entries to each site in order, late by a random delay per site; appends reach it late by a random delay too, so a
 * site's entries may overtake each other, and some are sent twice. Write-sets reach the other replicas in any order.
 *
 * <p>A call reads its rows when it starts and writes {@code mix(value, txn)} to each: a call that ran against the
 * wrong rows leaves other values. After every run: every site read the same order, every call committed once, every
 * replica holds what running the calls one by one in the log's order gives, and every replica made every pair of
 * conflicting calls visible in the log's order.
 */
@Tag("unit")
class MultiSiteSimulationTest {

    record Workload(int sites, int callsPerSite, int rows, boolean partitioned, AgreementMode mode) {}

    record Totals(long calls, long collided, long cancelled, long killed, long stalled, long restacks) {
        Totals plus(Totals o) {
            return new Totals(
                    calls + o.calls,
                    collided + o.collided,
                    cancelled + o.cancelled,
                    killed + o.killed,
                    stalled + o.stalled,
                    restacks + o.restacks);
        }
    }

    @Test
    void sitesSharingRowsCollideAndStillCommitEveryConflictingPairInTheLogsOrderEverywhere() {
        Totals totals = new Totals(0, 0, 0, 0, 0, 0);
        for (int seed = 1; seed <= 40; seed++) {
            int sites = seed % 2 == 0 ? 2 : 3;
            totals = totals.plus(
                    new Simulation(new Workload(sites, 60, 6, false, AgreementMode.OPTIMISTIC), seed).run());
        }
        // The workload must reach every path, or the checks above prove little.
        Totals all = totals;
        assertTrue(all.collided() > 0, () -> "no collision: " + all);
        assertTrue(all.cancelled() > 0, () -> "no cancel: " + all);
        assertTrue(all.killed() > 0, () -> "no kill: " + all);
        assertTrue(all.stalled() > 0, () -> "no stall: " + all);
        assertTrue(all.restacks() > 0, () -> "no restack: " + all);
    }

    @Test
    void sitesOnTheirOwnRowsNeverCollide() {
        for (int seed = 1; seed <= 20; seed++) {
            Totals totals = new Simulation(new Workload(3, 60, 4, true, AgreementMode.OPTIMISTIC), seed).run();
            assertEquals(0, totals.collided(), () -> "collisions on partitioned rows: " + totals);
        }
    }

    @Test
    void pessimisticAgreementNeverCollides() {
        for (int seed = 1; seed <= 20; seed++) {
            Totals totals = new Simulation(new Workload(3, 60, 6, false, AgreementMode.PESSIMISTIC), seed).run();
            assertEquals(
                    0, totals.collided() + totals.cancelled() + totals.killed() + totals.stalled(), totals::toString);
        }
    }

    /** One simulated run; {@link #run} checks it and returns what it counted. */
    static final class Simulation {
        private final Workload workload;
        private final long seed;
        private final Random random;
        private final SimulatedTime time = new SimulatedTime();

        private final List<LogOrderAgreement> agreements = new ArrayList<>();
        private final List<Replica> replicas = new ArrayList<>();
        private final List<List<Long>> readOrder = new ArrayList<>();
        private final Map<Long, int[]> rowsOf = new HashMap<>();
        private final Map<Long, Integer> commits = new HashMap<>();
        private final Set<Long> visibleEverywhere = new HashSet<>();
        private long cancelled;
        private long killed;
        private long stalled;

        Simulation(Workload workload, long seed) {
            this.workload = workload;
            this.seed = seed;
            this.random = new Random(seed);
            for (int s = 0; s < workload.sites(); s++) {
                agreements.add(new LogOrderAgreement("s" + s, workload.mode()));
                replicas.add(new Replica(s));
                readOrder.add(new ArrayList<>());
            }
        }

        Totals run() {
            time.submitCalls(workload.sites(), workload.callsPerSite(), random, this::submit);
            time.runAll();
            check();
            long collided = 0;
            long restacks = 0;
            for (LogOrderAgreement agreement : agreements) {
                collided += agreement.counters().collided();
                restacks += agreement.counters().restacks();
            }
            return new Totals(rowsOf.size(), collided, cancelled, killed, stalled, restacks);
        }

        private void submit(int site, long txn) {
            int[] rows = pickRows(site);
            rowsOf.put(txn, rows);
            Placed placed = Placed.of(agreements.get(site).placeHome(txn, keys(rows)));
            if (placed.dispatchNow()) {
                replicas.get(site).dispatch(txn, placed.dependencies(), false);
            }
            append(placed.entry());
            if (random.nextInt(20) == 0) {
                append(placed.entry()); // sent again: its leader did not answer in time
            }
        }

        private int[] pickRows(int site) {
            int base = workload.partitioned() ? site * workload.rows() : 0;
            int first = base + random.nextInt(workload.rows());
            if (random.nextBoolean()) {
                return new int[] {first};
            }
            int second = base + random.nextInt(workload.rows());
            return second == first ? new int[] {first} : new int[] {first, second};
        }

        /** The entry reaches the log after a delay; the log hands it to each site in log order, each late by a delay. */
        private void append(ScheduleEntry entry) {
            after(1 + random.nextInt(60), () -> {
                for (int s = 0; s < workload.sites(); s++) {
                    int site = s;
                    time.inOrder(site, 1 + random.nextInt(50), () -> read(site, entry));
                }
            });
        }

        private void read(int site, ScheduleEntry entry) {
            for (Decision agreed : agreements.get(site).read(entry)) {
                readOrder.get(site).add(agreed.txn());
                Replica replica = replicas.get(site);
                switch (Verdict.of(agreed)) {
                    case REMOTE -> {}
                    case CONFIRMED -> after(1, () -> replica.confirm(agreed.txn(), agreed.dependencies()));
                    case COLLIDED -> after(1, () -> replica.replace(agreed.txn(), agreed.dependencies()));
                    case DISPATCH -> after(1, () -> replica.dispatch(agreed.txn(), agreed.dependencies(), true));
                    case ORPHANED -> throw new AssertionError("no site scheduler is replaced here: " + agreed);
                }
                if (visibleEverywhere.contains(agreed.txn())) {
                    agreements.get(site).forget(agreed.txn());
                }
            }
        }

        private void madeVisible(long txn) {
            for (Replica replica : replicas) {
                if (!replica.visible.contains(txn)) {
                    return;
                }
            }
            visibleEverywhere.add(txn);
            for (LogOrderAgreement agreement : agreements) {
                agreement.forget(txn); // ignored where the entry is not read yet; forgotten when it is
            }
        }

        private void check() {
            String where = "seed " + seed + ", " + workload;
            for (int s = 1; s < workload.sites(); s++) {
                assertEquals(readOrder.get(0), readOrder.get(s), () -> "sites read different orders, " + where);
            }
            List<Long> order = readOrder.get(0);
            assertEquals(rowsOf.size(), order.size(), () -> "calls placed by the log, " + where);
            for (long txn : rowsOf.keySet()) {
                assertEquals(1, commits.getOrDefault(txn, 0), () -> "commits of " + txn + ", " + where);
            }
            Map<Integer, Long> serial = new TreeMap<>();
            for (long txn : order) {
                for (int row : rowsOf.get(txn)) {
                    serial.put(row, mix(serial.getOrDefault(row, 0L), txn));
                }
            }
            for (Replica replica : replicas) {
                assertEquals(
                        serial,
                        replica.rows,
                        () -> "replica s" + replica.site + " differs from the log's order, " + where);
                assertEquals(order.size(), replica.visibleOrder.size(), () -> "visible at s" + replica.site);
                Map<Long, Integer> position = new HashMap<>();
                for (int i = 0; i < replica.visibleOrder.size(); i++) {
                    position.put(replica.visibleOrder.get(i), i);
                }
                Map<Integer, Long> lastWriter = new HashMap<>();
                for (long txn : order) {
                    for (int row : rowsOf.get(txn)) {
                        Long before = lastWriter.put(row, txn);
                        if (before != null && position.get(before) > position.get(txn)) {
                            fail("replica s" + replica.site + " made " + txn + " visible before " + before
                                    + " (both write row " + row + "), " + where);
                        }
                    }
                }
            }
            for (LogOrderAgreement agreement : agreements) {
                assertEquals(0, agreement.pending(), () -> agreement.site() + " has calls pending, " + where);
                assertEquals(0, agreement.agreedSize(), () -> agreement.site() + " forgot not all calls, " + where);
            }
        }

        /** A site's replica: runs its site's calls, applies the others' write-sets after their dependencies. */
        final class Replica {
            final int site;
            final Map<Integer, Long> rows = new TreeMap<>();
            final Set<Long> visible = new HashSet<>();
            final List<Long> visibleOrder = new ArrayList<>();
            final Map<Long, Run> runs = new LinkedHashMap<>();
            final List<WriteSet> toApply = new ArrayList<>();

            Replica(int site) {
                this.site = site;
            }

            void dispatch(long txn, long[] dependencies, boolean placed) {
                Run run = new Run(new ProvisionalCall(txn, dependencies, placed));
                if (placed) {
                    run.agreed = dependencies;
                }
                runs.put(txn, run);
                progress();
            }

            void confirm(long txn, long[] agreed) {
                Run run = runs.get(txn);
                run.agreed = agreed;
                if (run.call.confirm() == Step.COMMIT) {
                    commit(run);
                }
            }

            void replace(long txn, long[] agreed) {
                Run run = runs.get(txn);
                run.agreed = agreed;
                Step step = run.call.replace(agreed);
                if (step == Step.CANCELLED) {
                    cancelled++;
                } else {
                    killed++;
                }
                progress();
            }

            void ran(Run run) {
                switch (run.call.ran()) {
                    case COMMIT -> commit(run);
                    case STALL -> stalled++;
                    case KILL -> progress(); // rolled back: it waits for its agreed dependencies and runs again
                    default -> throw new IllegalStateException();
                }
            }

            void commit(Run run) {
                long txn = run.call.txn();
                Map<Integer, Long> writes = new TreeMap<>();
                run.read.forEach((row, value) -> writes.put(row, mix(value, txn)));
                run.call.committed();
                runs.remove(txn);
                commits.merge(txn, 1, Integer::sum);
                WriteSet writeSet = new WriteSet(txn, run.agreed, writes);
                install(writeSet);
                for (Replica other : replicas) {
                    if (other != this) {
                        after(5 + random.nextInt(60), () -> other.receive(writeSet));
                    }
                }
                progress(); // calls here waiting for it may start
            }

            void receive(WriteSet writeSet) {
                toApply.add(writeSet);
                progress();
            }

            private void install(WriteSet writeSet) {
                rows.putAll(writeSet.writes());
                visible.add(writeSet.txn());
                visibleOrder.add(writeSet.txn());
                madeVisible(writeSet.txn());
            }

            /** Applies what can be applied and starts what can start, until nothing more can. */
            private void progress() {
                boolean moved = true;
                while (moved) {
                    moved = false;
                    for (int i = 0; i < toApply.size(); i++) {
                        WriteSet writeSet = toApply.get(i);
                        if (allVisible(writeSet.dependencies())) {
                            toApply.remove(i--);
                            install(writeSet);
                            moved = true;
                        }
                    }
                }
                for (Run run : new ArrayList<>(runs.values())) {
                    if (run.call.state() == ProvisionalCall.State.WAITING && allVisible(run.call.dependencies())) {
                        run.call.start();
                        run.read = new TreeMap<>();
                        for (int row : rowsOf.get(run.call.txn())) {
                            run.read.put(row, rows.getOrDefault(row, 0L));
                        }
                        after(1 + random.nextInt(15), () -> ran(run));
                    }
                }
            }

            private boolean allVisible(long[] dependencies) {
                for (long dependency : dependencies) {
                    if (!visible.contains(dependency)) {
                        return false;
                    }
                }
                return true;
            }
        }

        static final class Run {
            final ProvisionalCall call;
            long[] agreed;
            Map<Integer, Long> read;

            Run(ProvisionalCall call) {
                this.call = call;
            }
        }

        @SuppressWarnings("ArrayRecordComponent") // never compared
        record WriteSet(long txn, long[] dependencies, Map<Integer, Long> writes) {
            @Override
            public String toString() {
                return "WriteSet[" + txn + " after " + Arrays.toString(dependencies) + "]";
            }
        }

        private void after(long delay, Runnable action) {
            time.after(delay, action);
        }
    }

    static long mix(long value, long txn) {
        long z = (value ^ txn) * 0x9E3779B97F4A7C15L;
        return z ^ (z >>> 29);
    }

    static List<WriteKey> keys(int[] rows) {
        List<WriteKey> keys = new ArrayList<>();
        for (int row : rows) {
            keys.add(LogOrderAgreementTest.key(row));
        }
        return keys;
    }
}
