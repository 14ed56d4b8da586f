package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Property test of scheduling with site-owned conflict classes ({@link OwnedAgreement}): random two- and three-site
 * workloads, each row owned by one site, most calls on their own site's rows (local: no schedule log) and some on
 * another site's too (spanning: through the log and every owner's placement), as a discrete-event simulation with
 * random delays on every message. Appends to the schedule log reach it late and are sometimes sent twice; write-sets
 * reach the other replicas through the write-set log, in the one order they were committed in, each late by a delay.
 *
 * <p>A call reads its rows when it starts and writes {@code mix(value, txn)} to each, so a call that ran against a
 * stale row leaves other values. Checked after every run: every call committed once (no wait was circular), every
 * replica made the writers of every row visible in one order, every replica holds what running the calls in that
 * order gives, and every site forgot every call.
 *
 * <p>The same simulation runs the abort-free agreement ({@link AbortFreeAgreement}): every row any site's, every
 * site placing every call as it reaches it (its own calls at once, the others' as it reads them), so that concurrent
 * calls on one row form dependency cycles, which every site must order alike without running anything twice.
 */
@Tag("unit")
class OwnedSitesSimulationTest {

    record Totals(long calls, long local, long spanning, long placedForOthers, long barrierWaits) {
        Totals plus(Totals o) {
            return new Totals(
                    calls + o.calls,
                    local + o.local,
                    spanning + o.spanning,
                    placedForOthers + o.placedForOthers,
                    barrierWaits + o.barrierWaits);
        }
    }

    @Test
    void localCallsNeverWaitForTheLogAndEveryRowIsWrittenInOneOrderEverywhere() {
        Totals totals = new Totals(0, 0, 0, 0, 0);
        for (int seed = 1; seed <= 40; seed++) {
            totals = totals.plus(new Simulation(seed % 2 == 0 ? 2 : 3, 60, 3, seed, true).run());
        }
        Totals all = totals;
        // The workload must reach both kinds of call and the barrier, or the checks prove little.
        assertTrue(all.local() > all.calls() / 2, () -> "too few local calls: " + all);
        assertTrue(all.spanning() > 0 && all.placedForOthers() >= all.spanning(), () -> "spanning calls: " + all);
        assertTrue(all.barrierWaits() > 0, () -> "no spanning call had to wait for its barrier: " + all);
    }

    @Test
    void abortFreeCyclesAreOrderedAlikeEverywhereAndNoCallRunsTwice() {
        long groups = 0;
        long calls = 0;
        for (int seed = 1; seed <= 40; seed++) {
            Simulation run = new Simulation(seed % 2 == 0 ? 2 : 3, 60, 3, seed, true, true);
            calls += run.run().calls();
            for (PlacedByOwners agreement : run.agreements) {
                groups += ((OwnedAgreement.Counters) agreement.counters()).groups();
            }
        }
        // Without cycles the test would prove nothing about their order: the workload must make some (each site
        // counts each cycle it resolves; about 100 in 6,000 calls with these seeds).
        assertTrue(groups >= 40, "dependency cycles resolved: " + groups + " in " + calls + " calls");
    }

    @Test
    void withoutTheBarrierASpanningCallReadsARowItsOwnerAlreadyForgot() {
        // The barrier is what makes forgetting safe: without it some run breaks the order (the checks above catch it).
        AssertionError broken = assertThrows(AssertionError.class, () -> {
            for (int seed = 1; seed <= 40; seed++) {
                new Simulation(seed % 2 == 0 ? 2 : 3, 60, 3, seed, false).run();
            }
        });
        assertTrue(broken.getMessage().contains("read a stale row"), broken::getMessage);
    }

    /** One simulated run; {@link #run} checks it and returns what it counted. */
    static final class Simulation {
        private final int sites;
        private final int callsPerSite;
        private final int rowsPerSite;
        private final long seed;
        private final boolean barrier;
        private final boolean abortFree;
        private final Random random;
        private final SimulatedTime time = new SimulatedTime();

        private final List<PlacedByOwners> agreements = new ArrayList<>();
        private final List<Replica> replicas = new ArrayList<>();
        private final Map<Long, int[]> rowsOf = new HashMap<>();
        private final Map<Long, Integer> commits = new HashMap<>();
        /** When each write-set was committed in the write-set log. */
        private final Map<Long, Long> loggedAt = new HashMap<>();

        private long barrierWaits;

        Simulation(int sites, int callsPerSite, int rowsPerSite, long seed, boolean barrier) {
            this(sites, callsPerSite, rowsPerSite, seed, barrier, false);
        }

        Simulation(int sites, int callsPerSite, int rowsPerSite, long seed, boolean barrier, boolean abortFree) {
            this.sites = sites;
            this.callsPerSite = callsPerSite;
            this.rowsPerSite = rowsPerSite;
            this.seed = seed;
            this.barrier = barrier;
            this.abortFree = abortFree;
            this.random = new Random(seed);
            List<String> names = new ArrayList<>();
            for (int s = 0; s < sites; s++) {
                names.add("s" + s);
            }
            for (int s = 0; s < sites; s++) {
                agreements.add(
                        abortFree
                                ? new AbortFreeAgreement("s" + s, names)
                                : new OwnedAgreement("s" + s, key -> Set.of("s" + (key.parts()[0] / rowsPerSite))));
                replicas.add(new Replica(s));
            }
        }

        Totals run() {
            time.submitCalls(sites, callsPerSite, random, this::submit);
            time.runAll();
            check();
            long local = 0;
            long spanning = 0;
            long placedForOthers = 0;
            for (PlacedByOwners agreement : agreements) {
                OwnedAgreement.Counters counters = (OwnedAgreement.Counters) agreement.counters();
                local += counters.local();
                spanning += counters.spanning();
                placedForOthers += counters.placedForOthers();
            }
            return new Totals(rowsOf.size(), local, spanning, placedForOthers, barrierWaits);
        }

        private void submit(int site, long txn) {
            int[] rows = pickRows(site);
            rowsOf.put(txn, rows);
            Home home = agreements.get(site).placeHome(txn, MultiSiteSimulationTest.keys(rows));
            if (home instanceof Home.Local local) {
                replicas.get(site).dispatch(txn, local.dependencies(), false);
            } else if (home instanceof Home.Announced announced) {
                appendAgain(announced.entry());
                append(announced.own()); // abort-free: the home site's own placement, behind the entry
            } else {
                appendAgain(((Home.Spanning) home).entry());
            }
        }

        /** Appends {@code entry}, and sometimes again: its leader did not answer in time. */
        private void appendAgain(ScheduleEntry entry) {
            append(entry);
            if (random.nextInt(20) == 0) {
                append(entry);
            }
        }

        /** A row of its own site, and sometimes a second one of its own or (one call in four) of another site. */
        private int[] pickRows(int site) {
            if (abortFree) {
                // Any site's rows: few rows, so that concurrent calls of two sites often meet on one.
                int rows = sites * rowsPerSite;
                int first = random.nextInt(rows);
                int second = random.nextInt(rows);
                return random.nextBoolean() && second != first ? new int[] {first, second} : new int[] {first};
            }
            int first = site * rowsPerSite + random.nextInt(rowsPerSite);
            int kind = random.nextInt(4);
            if (kind == 0) {
                int other = (site + 1 + random.nextInt(sites - 1)) % sites;
                return new int[] {first, other * rowsPerSite + random.nextInt(rowsPerSite)};
            }
            int second = site * rowsPerSite + random.nextInt(rowsPerSite);
            return kind == 1 && second != first ? new int[] {first, second} : new int[] {first};
        }

        /**
         * The entry reaches the log after a delay, so a site's appends may reach it in another order than sent (as one
         * sent again does); the log hands it to each site in log order, each late by a delay.
         */
        private void append(Object entry) {
            after(1 + random.nextInt(60), () -> {
                for (int s = 0; s < sites; s++) {
                    int site = s;
                    time.inOrder(site, 1 + random.nextInt(50), () -> read(site, entry));
                }
            });
        }

        private void read(int site, Object entry) {
            PlacedByOwners agreement = agreements.get(site);
            List<Decision> decisions =
                    entry instanceof ScheduleEntry call ? agreement.read(call) : agreement.read((SitePlacement) entry);
            for (Decision decision : decisions) {
                if (decision instanceof Decision.Place place) {
                    append(place.placement());
                    if (random.nextInt(20) == 0) {
                        // Placed again, long after: a site scheduler's successor placing what it read once more.
                        time.after(200 + random.nextInt(400), () -> append(place.placement()));
                    }
                } else if (decision instanceof Decision.Dispatch dispatch) {
                    after(
                            1,
                            () -> replicas.get(site)
                                    .dispatch(dispatch.txn(), dispatch.dependencies(), dispatch.barrier()));
                } else {
                    throw new AssertionError("no site scheduler is replaced here: " + decision);
                }
            }
        }

        private void check() {
            String where = "seed " + seed + ", " + sites + " sites";
            for (long txn : rowsOf.keySet()) {
                assertEquals(1, commits.getOrDefault(txn, 0), () -> "commits of " + txn + ", " + where);
            }
            // The order of every row's writers, as the first replica made them visible, must be every replica's.
            Map<Integer, List<Long>> writers = new TreeMap<>();
            for (long txn : replicas.get(0).visibleOrder) {
                for (int row : rowsOf.get(txn)) {
                    writers.computeIfAbsent(row, r -> new ArrayList<>()).add(txn);
                }
            }
            Map<Integer, Long> serial = new TreeMap<>();
            writers.forEach((row, txns) -> {
                long value = 0;
                for (long txn : txns) {
                    value = MultiSiteSimulationTest.mix(value, txn);
                }
                serial.put(row, value);
            });
            for (Replica replica : replicas) {
                Map<Integer, List<Long>> order = new TreeMap<>();
                for (long txn : replica.visibleOrder) {
                    for (int row : rowsOf.get(txn)) {
                        order.computeIfAbsent(row, r -> new ArrayList<>()).add(txn);
                    }
                }
                for (Map.Entry<Integer, List<Long>> row : writers.entrySet()) {
                    if (!row.getValue().equals(order.get(row.getKey()))) {
                        fail("replica s" + replica.site + " made row " + row.getKey() + "'s writers visible in another"
                                + " order, " + where);
                    }
                }
                // Each call wrote mix(what it read, its id): a stale read leaves another value than the fold.
                assertEquals(serial, replica.rows, () -> "replica s" + replica.site + " read a stale row, " + where);
            }
            for (PlacedByOwners agreement : agreements) {
                assertEquals(0, agreement.pending(), () -> agreement.site() + " has calls pending, " + where);
                assertEquals(0, agreement.size(), () -> agreement.site() + " forgot not all calls, " + where);
                if (agreement instanceof AbortFreeAgreement free) {
                    assertEquals(0, free.graphSize(), () -> agreement.site() + " kept calls in its graph, " + where);
                }
            }
        }

        /** A site's replica: runs its site's calls, applies the others' write-sets after their dependencies. */
        final class Replica {
            final int site;
            final Map<Integer, Long> rows = new TreeMap<>();
            final Set<Long> visible = new HashSet<>();
            final List<Long> visibleOrder = new ArrayList<>();
            final List<Run> runs = new ArrayList<>();

            Replica(int site) {
                this.site = site;
            }

            /** {@code barrier}: it waits until this replica has applied every write-set logged before now. */
            void dispatch(long txn, long[] dependencies, boolean barrier) {
                runs.add(new Run(txn, dependencies, barrier && Simulation.this.barrier ? time.now() : -1));
                progress();
            }

            void commit(Run run, Map<Integer, Long> read) {
                Map<Integer, Long> writes = new TreeMap<>();
                read.forEach((row, value) -> writes.put(row, MultiSiteSimulationTest.mix(value, run.txn)));
                commits.merge(run.txn, 1, Integer::sum);
                loggedAt.put(run.txn, time.now());
                WriteSet writeSet = new WriteSet(run.txn, run.dependencies, writes);
                install(writeSet);
                for (Replica other : replicas) {
                    if (other != this) {
                        // The write-set log: every replica gets the write-sets in the one order they were committed in.
                        time.inOrder(sites + other.site, 5 + random.nextInt(60), () -> other.receive(writeSet));
                    }
                }
                progress();
            }

            void receive(WriteSet writeSet) {
                // In log order, each write-set's dependencies committed before it: they are visible here already.
                if (!allVisible(writeSet.dependencies())) {
                    fail("replica s" + site + " got " + writeSet.txn() + " before a dependency, seed " + seed);
                }
                install(writeSet);
                progress();
            }

            private void install(WriteSet writeSet) {
                rows.putAll(writeSet.writes());
                visible.add(writeSet.txn());
                visibleOrder.add(writeSet.txn());
                // Every node of this site (one here) made it visible, and the write-set log holds it.
                agreements.get(site).forget(writeSet.txn());
            }

            /** Starts what can start. */
            private void progress() {
                for (Run run : new ArrayList<>(runs)) {
                    if (!allVisible(run.dependencies)) {
                        continue;
                    }
                    if (!barrierPassed(run.barrier)) {
                        run.waitedForBarrier = true;
                        continue;
                    }
                    if (run.waitedForBarrier) {
                        barrierWaits++;
                        run.waitedForBarrier = false;
                    }
                    runs.remove(run);
                    Map<Integer, Long> read = new TreeMap<>();
                    for (int row : rowsOf.get(run.txn)) {
                        read.put(row, rows.getOrDefault(row, 0L));
                    }
                    after(1 + random.nextInt(15), () -> commit(run, read));
                }
            }

            private boolean barrierPassed(long barrierTime) {
                if (barrierTime < 0) {
                    return true;
                }
                for (Map.Entry<Long, Long> logged : loggedAt.entrySet()) {
                    if (logged.getValue() < barrierTime && !visible.contains(logged.getKey())) {
                        return false;
                    }
                }
                return true;
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
            final long txn;
            final long[] dependencies;
            final long barrier;
            boolean waitedForBarrier;

            Run(long txn, long[] dependencies, long barrier) {
                this.txn = txn;
                this.dependencies = dependencies;
                this.barrier = barrier;
            }
        }

        @SuppressWarnings("ArrayRecordComponent") // never compared
        record WriteSet(long txn, long[] dependencies, Map<Integer, Long> writes) {}

        private void after(long delay, Runnable action) {
            time.after(delay, action);
        }
    }
}
