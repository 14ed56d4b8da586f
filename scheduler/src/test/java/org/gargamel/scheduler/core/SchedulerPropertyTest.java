package org.gargamel.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Random TPC-C workloads (2–3 warehouses, 3 nodes) with a random interleaving of placements and reports
 * (each node reports a transaction only after its dependencies are visible there, and another node's
 * write-set only after its executing node ran it), against a brute-force oracle:
 * <ul>
 * <li>every back-dependency conflicts with the call and is still in flight;
 * <li>every earlier conflicting update call not yet visible everywhere is reached through the transitive
 * closure of the dependencies;
 * <li>a call runs on the worker of its most recent dependency with an open chain (no earlier successor,
 * live node) when there is one, and otherwise on the least-loaded worker (ties: least-loaded node, then name, index);
 * <li>at the end, with everything reported, nothing is left.
 * </ul>
 * Some runs remove a node midway: its unreported placements come back exactly.
 */
@Tag("unit")
class SchedulerPropertyTest {
    private final ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);

    @Test
    void dependenciesOrderEveryConflictAndWorkersFollowOpenChains() {
        for (Isolation isolation : Isolation.values()) {
            for (long seed = 1; seed <= 10; seed++) {
                // Seeded by the isolation's name, not its place in the enum.
                new Run(
                                new SplittableRandom(
                                        seed * 7919 + isolation.name().hashCode()),
                                isolation,
                                2 + (int) (seed % 2),
                                seed % 3 == 0,
                                250)
                        .run();
            }
        }
    }

    private final class Run {
        final SplittableRandom random;
        final Isolation isolation;
        final int warehouses;
        final boolean removeOne;
        final int calls;
        final Scheduler scheduler;
        final TreeMap<String, Integer> liveNodes = new TreeMap<>();
        final List<ProcedureCall> byTxn = new ArrayList<>();
        final List<Placement> placements = new ArrayList<>();
        final List<BitSet> closure = new ArrayList<>();
        final Map<String, Set<Long>> visible = new HashMap<>();
        final Set<Long> executed = new HashSet<>();
        final Set<Long> successors = new HashSet<>();
        final Map<WorkerRef, Integer> load = new HashMap<>();
        final Set<Long> rejected = new HashSet<>();

        Run(SplittableRandom random, Isolation isolation, int warehouses, boolean removeOne, int calls) {
            this.random = random;
            this.isolation = isolation;
            this.warehouses = warehouses;
            this.removeOne = removeOne;
            this.calls = calls;
            this.scheduler = new Scheduler(rules, Mode.GARGAMEL, isolation);
            byTxn.add(null);
            placements.add(null);
            closure.add(new BitSet());
            for (String node : List.of("n2", "n0", "n1")) {
                int workers = 1 + random.nextInt(2);
                scheduler.addNode(node, workers);
                liveNodes.put(node, workers);
                visible.put(node, new HashSet<>());
            }
        }

        void run() {
            int removeAt = removeOne ? calls / 2 : -1;
            while (byTxn.size() <= calls) {
                if (byTxn.size() - 1 == removeAt && liveNodes.size() == 3) {
                    removeNode("n" + random.nextInt(3));
                }
                if (random.nextInt(100) < 45) {
                    place();
                } else {
                    reportSome();
                }
            }
            while (reportSome()) {
                // drain
            }
            assertEquals(0, scheduler.inFlight(), "drained");
            assertEquals(0, scheduler.graphSize());
            assertEquals(0, scheduler.trackedTransactions());
        }

        boolean fullyVisible(long txn) {
            for (String node : liveNodes.keySet()) {
                if (!visible.get(node).contains(txn)) {
                    return false;
                }
            }
            return true;
        }

        boolean gone(long txn) {
            Placement p = placements.get((int) txn);
            return p.readOnly() ? executed.contains(txn) || rejected.contains(txn) : fullyVisible(txn);
        }

        void place() {
            ProcedureCall call = TpccCalls.random(random, warehouses);
            boolean readOnly = rules.check(call).readOnly();
            // Oracle view before placement.
            // Least loaded; ties: the least-loaded node, then node name, then index.
            int minLoad = Integer.MAX_VALUE;
            int minNodeLoad = Integer.MAX_VALUE;
            WorkerRef leastLoaded = null;
            for (Map.Entry<String, Integer> node : liveNodes.entrySet()) {
                int nodeLoad = 0;
                for (int i = 0; i < node.getValue(); i++) {
                    nodeLoad += load.getOrDefault(new WorkerRef(node.getKey(), i), 0);
                }
                for (int i = 0; i < node.getValue(); i++) {
                    WorkerRef w = new WorkerRef(node.getKey(), i);
                    int l = load.getOrDefault(w, 0);
                    assertEquals(l, scheduler.load(w), "load of " + w);
                    if (l < minLoad || (l == minLoad && nodeLoad < minNodeLoad)) {
                        minLoad = l;
                        minNodeLoad = nodeLoad;
                        leastLoaded = w;
                    }
                }
            }
            Placement p = scheduler.place(call);
            long txn = p.txn();
            assertEquals(byTxn.size(), txn, "ids increase from 1");
            assertEquals(readOnly, p.readOnly());
            byTxn.add(call);
            placements.add(p);
            BitSet reach = new BitSet();
            closure.add(reach);
            load.merge(p.worker(), 1, Integer::sum);
            if (readOnly) {
                assertEquals(0, p.backDependencies().length);
                assertEquals(leastLoaded, p.worker(), "read-only on the least-loaded worker");
                return;
            }
            Placement open = null;
            for (long dep : p.backDependencies()) {
                Placement before = placements.get((int) dep);
                assertTrue(dep < txn && !before.readOnly(), "dependency " + dep + " of " + txn);
                assertTrue(!fullyVisible(dep), "dependency " + dep + " was already visible everywhere");
                assertTrue(
                        rules.conflict(byTxn.get((int) dep), call, isolation).isPresent(),
                        "edge " + dep + " -> " + txn + " joins non-conflicting calls");
                reach.set((int) dep);
                reach.or(closure.get((int) dep));
                if (!successors.contains(dep)
                        && liveNodes.containsKey(before.worker().node())
                        && (open == null || dep > open.txn())) {
                    open = before;
                }
            }
            for (long dep : p.backDependencies()) {
                successors.add(dep);
            }
            for (long earlier = 1; earlier < txn; earlier++) {
                Placement before = placements.get((int) earlier);
                if (before.readOnly() || fullyVisible(earlier)) {
                    continue;
                }
                if (rules.conflict(byTxn.get((int) earlier), call, isolation).isPresent()) {
                    assertTrue(
                            reach.get((int) earlier),
                            "conflicting " + earlier + " and " + txn + " are not ordered (" + byTxn.get((int) earlier)
                                    + " / " + call + ")");
                }
            }
            if (open != null) {
                assertEquals(open.worker(), p.worker(), txn + " should continue the open chain of " + open.txn());
            } else {
                assertEquals(leastLoaded, p.worker(), txn + " has no open chain: least-loaded worker");
            }
        }

        /** One random allowed report; false when none is possible. */
        boolean reportSome() {
            List<String> nodes = new ArrayList<>(liveNodes.keySet());
            int start = random.nextInt(nodes.size());
            for (int k = 0; k < nodes.size(); k++) {
                String node = nodes.get((start + k) % nodes.size());
                List<Long> candidates = candidates(node);
                if (!candidates.isEmpty()) {
                    long txn = candidates.get(random.nextInt(Math.min(candidates.size(), 4)));
                    report(node, txn);
                    return true;
                }
            }
            return false;
        }

        List<Long> candidates(String node) {
            List<Long> result = new ArrayList<>();
            Set<Long> seen = visible.get(node);
            for (long txn = 1; txn < placements.size(); txn++) {
                Placement p = placements.get((int) txn);
                if (seen.contains(txn) || gone(txn)) {
                    continue;
                }
                boolean mine = p.worker().node().equals(node);
                if (p.readOnly() && !mine) {
                    continue;
                }
                // Another node applies the write-set only once it exists (or the call was rejected).
                if (!mine && !executed.contains(txn) && !rejected.contains(txn)) {
                    continue;
                }
                boolean ready = true;
                for (long dep : p.backDependencies()) {
                    if (!seen.contains(dep) && !fullyVisible(dep)) {
                        ready = false;
                        break;
                    }
                }
                if (ready) {
                    result.add(txn);
                }
            }
            return result;
        }

        void report(String node, long txn) {
            Placement p = placements.get((int) txn);
            if (p.worker().node().equals(node) && executed.add(txn)) {
                load.merge(p.worker(), -1, Integer::sum);
            }
            visible.get(node).add(txn);
            scheduler.reportVisible(node, txn);
            scheduler.reportVisible(node, txn); // repeated: harmless
            long inFlight = 0;
            for (long t = 1; t < placements.size(); t++) {
                if (!gone(t)) {
                    inFlight++;
                }
            }
            assertEquals(inFlight, scheduler.inFlight());
        }

        void removeNode(String node) {
            List<Long> expected = new ArrayList<>();
            for (long txn = 1; txn < placements.size(); txn++) {
                Placement p = placements.get((int) txn);
                if (p.worker().node().equals(node) && !executed.contains(txn)) {
                    expected.add(txn);
                }
            }
            List<Long> actual = new ArrayList<>();
            for (Placement p : scheduler.removeNode(node)) {
                actual.add(p.txn());
            }
            assertEquals(expected, actual, "placements of " + node + " it had not reported");
            rejected.addAll(actual);
            liveNodes.remove(node);
            visible.remove(node);
            for (int i = 0; i < 2; i++) {
                load.remove(new WorkerRef(node, i));
            }
        }
    }
}
