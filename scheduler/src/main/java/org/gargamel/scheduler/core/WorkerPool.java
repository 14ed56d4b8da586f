package org.gargamel.scheduler.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The nodes the {@link Scheduler} places calls on, and their workers: which are live (a bit each in a long, at most
 * {@link Scheduler#MAX_NODES}), which serve (a joining node counts for garbage collection before it gets calls), each
 * worker's load, and the choice of a worker: least-loaded (ties to the least-loaded node, then node name, then index),
 * round-robin, or the central one (the first serving node to join).
 *
 * <p>Single-threaded: owned by its {@link Scheduler}, on the scheduler's event loop.
 */
final class WorkerPool {
    /** A node: its bit among the live ones, its workers, whether it is live and serves. */
    static final class Node {
        final long bit;
        final long joinSequence;
        final Worker[] workers;
        boolean live = true;
        /** Calls may be placed here (a joining node counts for garbage collection before it serves). */
        boolean serving;

        Node(String name, int slot, long joinSequence, int workerCount) {
            this.bit = 1L << slot;
            this.joinSequence = joinSequence;
            this.workers = new Worker[workerCount];
            for (int i = 0; i < workerCount; i++) {
                workers[i] = new Worker(new WorkerRef(name, i), this);
            }
        }
    }

    /** A worker of a node, with its load. */
    static final class Worker {
        final WorkerRef ref;
        final Node node;
        /** Placed here and not yet reported by this worker's node. */
        int load;

        Worker(WorkerRef ref, Node node) {
            this.ref = ref;
            this.node = node;
        }
    }

    private final TreeMap<String, Node> nodes = new TreeMap<>();
    private final Map<String, Node> nodesByName = new HashMap<>();
    private final Map<WorkerRef, Worker> workersByRef = new HashMap<>();
    /** Live workers ordered by node name, then index: the tie-break order of the least-loaded choice. */
    private Worker[] liveWorkers = new Worker[0];

    private Worker centralWorker;
    private long liveMask;
    private long joinSequence;
    private int roundRobin;

    /** See {@link Scheduler#addNode(String, int, boolean)}. */
    void add(String node, int workers, boolean serving) {
        if (node == null || node.isBlank()) {
            throw new IllegalArgumentException("a node needs a non-empty name");
        }
        if (workers < 1) {
            throw new IllegalArgumentException(
                    "node " + node + " announced " + workers + " workers; at least 1 needed");
        }
        Node existing = nodes.get(node);
        if (existing != null) {
            if (existing.workers.length != workers) {
                throw new IllegalArgumentException(
                        "node " + node + " already announced " + existing.workers.length + " workers, now " + workers);
            }
            if (serving && !existing.serving) {
                existing.serving = true;
                rebuildWorkers();
            }
            return;
        }
        if (nodes.size() >= Scheduler.MAX_NODES) {
            throw new IllegalStateException("cannot add node " + node + ": at most " + Scheduler.MAX_NODES + " nodes");
        }
        int slot = Long.numberOfTrailingZeros(~liveMask);
        Node state = new Node(node, slot, joinSequence++, workers);
        state.serving = serving;
        nodes.put(node, state);
        nodesByName.put(node, state);
        liveMask |= state.bit;
        for (Worker worker : state.workers) {
            workersByRef.put(worker.ref, worker);
        }
        rebuildWorkers();
    }

    /** Node {@code node} left: no longer live nor chosen; null if unknown. */
    Node remove(String node) {
        Node state = nodes.remove(node);
        if (state == null) {
            return null;
        }
        nodesByName.remove(node);
        state.live = false;
        liveMask &= ~state.bit;
        for (Worker worker : state.workers) {
            workersByRef.remove(worker.ref);
        }
        rebuildWorkers();
        return state;
    }

    /** The live node {@code node}, or null. */
    Node named(String node) {
        return nodesByName.get(node);
    }

    /** The bits of the live nodes. */
    long liveMask() {
        return liveMask;
    }

    /** Whether a serving node has a worker (else no call can be placed). */
    boolean hasWorkers() {
        return liveWorkers.length > 0;
    }

    /** The next worker in turn (mode round-robin). */
    Worker nextRoundRobin() {
        Worker worker = liveWorkers[roundRobin % liveWorkers.length];
        roundRobin = (roundRobin + 1) % liveWorkers.length;
        return worker;
    }

    /** The first worker of the first serving node to join (mode centralized). */
    Worker central() {
        return centralWorker;
    }

    /** Nodes that serve (a joining node that has not caught up yet does not count). */
    int servingCount() {
        int serving = 0;
        for (Node node : nodes.values()) {
            if (node.serving) {
                serving++;
            }
        }
        return serving;
    }

    /** Placed on {@code w} and not yet reported by its node; 0 for unknown or departed workers. */
    int load(WorkerRef w) {
        Worker worker = workersByRef.get(w);
        return worker == null ? 0 : worker.load;
    }

    /** Live workers in tie-break order (node name, then index). */
    List<WorkerRef> refs() {
        List<WorkerRef> result = new ArrayList<>(liveWorkers.length);
        for (Worker worker : liveWorkers) {
            result.add(worker.ref);
        }
        return result;
    }

    /** The live nodes whose bits are set in {@code mask}, and the bits no live node holds. */
    List<String> namesOf(long mask) {
        List<String> names = new ArrayList<>();
        long left = mask;
        for (Node node : nodes.values()) {
            if ((mask & node.bit) != 0) {
                names.add(node.workers[0].ref.node());
                left &= ~node.bit;
            }
        }
        if (left != 0) {
            names.add("no live node (bits " + Long.toBinaryString(left) + ")");
        }
        return names;
    }

    /**
     * The least-loaded worker on a node outside {@code avoid} (nodes where the session's last write is not visible yet,
     * as far as their reports tell), so that a new chain or a read does not wait for an apply; the least-loaded worker
     * of all if every serving node is to be avoided.
     */
    Worker leastLoadedAvoiding(long avoid) {
        if (avoid == 0) {
            return leastLoaded();
        }
        Worker best = null;
        int bestNodeLoad = 0;
        for (Worker candidate : liveWorkers) {
            if ((candidate.node.bit & avoid) != 0) {
                continue;
            }
            int candidateNodeLoad = nodeLoad(candidate.node);
            if (best == null
                    || candidate.load < best.load
                    || (candidate.load == best.load && candidateNodeLoad < bestNodeLoad)) {
                best = candidate;
                bestNodeLoad = candidateNodeLoad;
            }
        }
        return best != null ? best : leastLoaded();
    }

    /**
     * The least-loaded worker; among equally loaded workers, the one whose node is least loaded, so that new chains
     * spread over the replicas rather than filling the first node's workers (then node name, then index).
     */
    private Worker leastLoaded() {
        Worker best = liveWorkers[0];
        int bestNodeLoad = nodeLoad(best.node);
        for (int i = 1; i < liveWorkers.length; i++) {
            Worker candidate = liveWorkers[i];
            if (candidate.load > best.load) {
                continue;
            }
            int candidateNodeLoad = candidate.node == best.node ? bestNodeLoad : nodeLoad(candidate.node);
            if (candidate.load < best.load || candidateNodeLoad < bestNodeLoad) {
                best = candidate;
                bestNodeLoad = candidateNodeLoad;
            }
        }
        return best;
    }

    private static int nodeLoad(Node node) {
        int load = 0;
        for (Worker worker : node.workers) {
            load += worker.load;
        }
        return load;
    }

    private void rebuildWorkers() {
        List<Worker> live = new ArrayList<>();
        Node first = null;
        for (Node node : nodes.values()) {
            if (!node.serving) {
                continue;
            }
            live.addAll(Arrays.asList(node.workers));
            if (first == null || node.joinSequence < first.joinSequence) {
                first = node;
            }
        }
        liveWorkers = live.toArray(new Worker[0]);
        centralWorker = first == null ? null : first.workers[0];
        roundRobin = liveWorkers.length == 0 ? 0 : roundRobin % liveWorkers.length;
    }
}
