package org.gargamel.scheduler.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.WriteKeyBuffer;
import org.gargamel.classifier.index.ConflictIndex;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;

/**
 * The scheduler's core (DESIGN.md §4, thesis §3.3 Algorithm 1): gives every call a transaction id, its
 * back-dependencies and a worker, and forgets transactions once every live node has made them visible.
 *
 * <p>The graph's vertices are the update transactions placed and not yet collected; its edges are the
 * back-dependencies. In mode {@link Mode#GARGAMEL} they come from the classifier's
 * {@link ConflictIndex}: the last conflicting writers. A call continues on the worker of the most recent
 * back-dependency whose chain is still open (no successor yet, worker on a live node), which extends or
 * merges chains; a second successor of a transaction starts a new chain on the least-loaded worker
 * (a split). Read-only calls never enter the graph. A call may also wait for its session's last write
 * ({@link #place(ProcedureCall, long)}): read-your-writes, not a conflict.
 *
 * <p>Single-threaded: the scheduler's event loop owns it. At most 64 nodes may be live at once.
 */
public final class Scheduler {
    /** Live nodes are tracked as bits of a long (one per node slot). */
    public static final int MAX_NODES = 64;

    private static final long[] NO_DEPENDENCIES = new long[0];

    private static final class Txn {
        final Placement placement;
        final WorkerPool.Worker worker;
        /** Nodes (bits) that must still report this transaction. */
        long pending;
        /** Reported by its executing node (its worker's load was released). */
        boolean executed;
        /** An update transaction still in the graph (and, in GARGAMEL mode, the index). */
        boolean inGraph;
        /** Some later transaction depends on it: its chain is closed. */
        boolean hasSuccessor;
        /** Fully reported transactions waiting for this one to leave the graph first (rare). */
        List<Txn> waiters;

        Txn(Placement placement, WorkerPool.Worker worker) {
            this.placement = placement;
            this.worker = worker;
        }

        long id() {
            return placement.txn();
        }
    }

    private final ClassifierRules rules;
    private final Mode mode;
    private final Isolation isolation;
    /** Whose conflict granularity the keys take: the isolation's own (PSI: columns), or rows ({@link #conflictsByRow}). */
    private Isolation keysAs;

    private final ConflictIndex index;

    private final WorkerPool pool = new WorkerPool();

    private final TxnTable<Txn> txns = new TxnTable<>();
    /** The conflict keys (writes and declared reads) of the call being placed (reused: no allocation per key). */
    private final WriteKeyBuffer conflictKeys = new WriteKeyBuffer();
    /** Scratch for the live back-dependencies of the call being placed. */
    private Txn[] scratch = new Txn[16];
    /** Scratch for {@link #collect}: no allocation per collected transaction. */
    private final ArrayDeque<Txn> collectWork = new ArrayDeque<>();

    private long nextTxn = 1;
    private long lastTxn = Long.MAX_VALUE;
    /** Whether a transaction id was handed out (the first id may be set only before). */
    private boolean placedAny;

    private long lastUpdate;
    private long inFlight;
    private int graphSize;

    /**
     * The first transaction id this scheduler hands out: its epoch's (docs/protocol.md, Scheduler failover), so that
     * no id of an earlier scheduler is used again. Only before the first call is placed.
     */
    public void startTransactionIdsAt(long first) {
        startTransactionIdsAt(first, Long.MAX_VALUE);
    }

    /** As above, handing out no id past {@code last} (then placing fails: the scheduler must claim a new epoch). */
    public void startTransactionIdsAt(long first, long last) {
        lastTxn = last;
        if (placedAny) {
            throw new IllegalStateException("transaction ids are already handed out (next " + nextTxn + ")");
        }
        if (first < 1) {
            throw new IllegalArgumentException("transaction ids start at 1 or more, got " + first);
        }
        nextTxn = first;
    }

    public Scheduler(ClassifierRules rules, Mode mode, Isolation isolation) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.isolation = Objects.requireNonNull(isolation, "isolation");
        this.keysAs = isolation;
        this.index = new ConflictIndex(rules::wildcardPossible);
    }

    public Mode mode() {
        return mode;
    }

    public Isolation isolation() {
        return isolation;
    }

    /**
     * Calls writing different columns of one row conflict too (PSI otherwise lets them run at once). Site-owned
     * classes need it: with a write-set log per site a node holds its call's row locks until the log delivers the
     * write-set, and a write-set of a column-disjoint call before it in the log would wait on them for ever (a chaos
     * run with three replicas per site stopped so). Before the first placement.
     */
    public void conflictsByRow() {
        keysAs = Isolation.SI;
    }

    /** The isolation whose granularity the conflict keys take ({@link #conflictsByRow}). */
    public Isolation keysAs() {
        return keysAs;
    }

    /**
     * Node {@code node} announces {@code workers} workers. Repeating the same announcement is a no-op; a
     * different worker count for a live node is an error. A node that joins counts for the garbage collection
     * of the transactions placed after it joined.
     */
    public void addNode(String node, int workers) {
        addNode(node, workers, true);
    }

    /**
     * As {@link #addNode(String, int)}; with {@code serving} false the node counts for garbage collection at once but
     * gets no call until it is announced again with {@code serving} true (once it has caught up).
     */
    public void addNode(String node, int workers, boolean serving) {
        pool.add(node, workers, serving);
    }

    /**
     * Node {@code node} left. Returns the placements on its workers that it had not reported (in txn order;
     * the server rejects them). The node no longer counts for garbage collection, so transactions every
     * remaining node has reported are collected now; new calls avoid its workers. Unknown nodes: empty list.
     *
     * <p>The returned update transactions stay in the graph until every remaining node reports them (their
     * write-sets may still arrive); read-only ones are forgotten at once.
     */
    public List<Placement> removeNode(String node) {
        WorkerPool.Node state = pool.remove(node);
        if (state == null) {
            return List.of();
        }

        List<Txn> all = new ArrayList<>(txns.values());
        all.sort((a, b) -> Long.compare(a.id(), b.id()));
        List<Placement> rejected = new ArrayList<>();
        List<Txn> collectable = new ArrayList<>();
        for (Txn txn : all) {
            if (txn.worker.node == state && !txn.executed) {
                rejected.add(txn.placement);
                txn.executed = true;
                if (!txn.inGraph) {
                    // Read-only: nobody else will ever report it.
                    if (txn.pending != 0) {
                        inFlight--;
                    }
                    txn.pending = 0;
                    txns.remove(txn.id());
                    continue;
                }
            }
            if ((txn.pending & state.bit) != 0) {
                txn.pending &= ~state.bit;
                if (txn.pending == 0) {
                    inFlight--;
                    collectable.add(txn);
                }
            }
        }
        for (Txn txn : collectable) {
            collect(txn);
        }
        return rejected;
    }

    /** Places a call with no session before it: {@link #place(ProcedureCall, long)} with {@code after} 0. */
    public Placement place(ProcedureCall call) {
        return place(call, 0);
    }

    /**
     * Places a call: its transaction id (increasing from 1), worker and back-dependencies. {@code after} is the last
     * update transaction the caller's session was told committed (0: none). While it is still in the graph (not yet
     * visible at every live node) it becomes one more back-dependency, so the call runs only where it is visible
     * (read-your-writes); unlike a conflict it neither chooses the worker nor closes a chain. Once collected it is
     * visible everywhere and adds nothing.
     */
    public Placement place(ProcedureCall call, long after) {
        return place(call, after, true);
    }

    /**
     * Places an update call whose conflicts another order decides (site-owned conflict classes, docs/multisite.md: a
     * call spanning sites is ordered by every owner when the schedule log hands it over): its transaction id, the
     * least-loaded worker and its session's last write, as {@link #place(ProcedureCall, long)} gives, but it does not
     * enter the conflict index, so no call placed here after it is made to wait for it. A read-only call is placed as
     * usual.
     */
    public Placement placeOutsideTheConflictIndex(ProcedureCall call, long after) {
        return place(call, after, false);
    }

    private Placement place(ProcedureCall call, long after, boolean indexed) {
        boolean readOnly;
        if (call.adHoc() != null) {
            readOnly = true; // an ad-hoc query: no rule, no write keys; the node runs it READ ONLY
        } else {
            try {
                // Both check the call; only GARGAMEL needs its conflict keys.
                ProcedureRule rule =
                        mode == Mode.GARGAMEL ? rules.conflictKeys(call, keysAs, conflictKeys) : rules.check(call);
                readOnly = rule.readOnly();
            } catch (RulesException | IllegalArgumentException e) {
                throw new RejectedCallException(e.getMessage(), e);
            }
        }
        if (!pool.hasWorkers()) {
            throw new RejectedCallException(
                    "no node has joined the cluster (or every node has left): no worker to run " + call.procedure());
        }
        if (nextTxn > lastTxn) {
            throw new IllegalStateException("this scheduler handed out every transaction id of its epoch (up to "
                    + lastTxn + "): restart it, and it claims a new epoch");
        }
        long id = nextTxn++;
        placedAny = true;
        Txn session = sessionWrite(after);
        // Nodes that may not have the session's last write yet: a call placed there would wait for its apply. Not its
        // executing node, whatever its reports say: the session was told the write committed, and a node makes its
        // own write visible before it answers (PSI and SI alike), while its report may wait for the next PROGRESS
        // batch (ProgressReporter.INTERVAL_MILLIS).
        // SchedulerTest.aSessionsNextCallMayGoToTheNodeThatRanItsWriteBeforeItReports.
        long sessionPending = session == null ? 0 : session.pending & ~session.worker.node.bit;
        WorkerPool.Worker worker;
        long[] dependencies = NO_DEPENDENCIES;
        Txn txn;
        if (readOnly) {
            worker = pool.leastLoadedAvoiding(sessionPending);
            txn = new Txn(new Placement(id, worker.ref, withSession(NO_DEPENDENCIES, session), true), worker);
            txn.pending = worker.node.bit;
        } else {
            switch (mode) {
                case GARGAMEL -> {
                    if (!indexed) {
                        worker = pool.leastLoadedAvoiding(sessionPending);
                        break;
                    }
                    dependencies = liveDependencies(index.add(id, conflictKeys));
                    Txn open = null;
                    for (int i = 0; i < dependencies.length; i++) {
                        Txn before = scratch[i];
                        scratch[i] = null;
                        if (!before.hasSuccessor
                                && before.worker.node.live
                                && (open == null || before.id() > open.id())) {
                            open = before;
                        }
                        before.hasSuccessor = true;
                    }
                    worker = open != null ? open.worker : pool.leastLoadedAvoiding(sessionPending);
                }
                case ROUND_ROBIN -> {
                    worker = pool.nextRoundRobin();
                }
                case CENTRALIZED -> {
                    Txn previous = txns.get(lastUpdate);
                    if (previous != null && previous.inGraph) {
                        dependencies = new long[] {lastUpdate};
                        previous.hasSuccessor = true;
                    }
                    lastUpdate = id;
                    worker = pool.central();
                }
                default -> throw new IllegalStateException("unknown mode " + mode);
            }
            txn = new Txn(new Placement(id, worker.ref, withSession(dependencies, session), false), worker);
            txn.pending = pool.liveMask();
            txn.inGraph = true;
            graphSize++;
        }
        worker.load++;
        inFlight++;
        txns.put(id, txn);
        return txn.placement;
    }

    /**
     * Node {@code node} says {@code txn} is visible there (executed there, or its write-set applied there).
     * Unknown nodes and ids are ignored; repeated reports are harmless.
     */
    public void reportVisible(String node, long txn) {
        WorkerPool.Node state = pool.named(node);
        if (state == null) {
            return;
        }
        Txn t = txns.get(txn);
        if (t == null) {
            return;
        }
        if (t.worker.node == state && !t.executed) {
            t.executed = true;
            t.worker.load--;
        }
        if ((t.pending & state.bit) != 0) {
            t.pending &= ~state.bit;
            if (t.pending == 0) {
                inFlight--;
                collect(t);
            }
        }
    }

    /**
     * The transactions that wait for {@code node}'s report (the ones it must still say are visible there, its own
     * read-only calls included), in id order; empty for an unknown node. Walks every tracked transaction: only when a
     * node forgot reports (docs/protocol.md), never on the hot path.
     */
    public long[] awaitedFrom(String node) {
        WorkerPool.Node state = pool.named(node);
        if (state == null) {
            return new long[0];
        }
        return txns.values().stream()
                .filter(txn -> (txn.pending & state.bit) != 0)
                .mapToLong(Txn::id)
                .sorted()
                .toArray();
    }

    /** Nodes that serve (a joining node that has not caught up yet does not count). */
    public int nodeCount() {
        return pool.servingCount();
    }

    /** Placed transactions not yet visible at every live node (read-only: not yet reported by their node). */
    public long inFlight() {
        return inFlight;
    }

    /**
     * What the transactions in flight wait for, oldest first, at most {@code limit} of them: for each, its node and
     * worker, whether that node has reported it, and the live nodes that have not. For a log line when the scheduler
     * does not quiesce; it walks every tracked transaction, so never on the hot path.
     */
    public String describeInFlight(int limit) {
        List<Txn> waiting = new ArrayList<>();
        for (Txn txn : txns.values()) {
            if (txn.pending != 0) {
                waiting.add(txn);
            }
        }
        waiting.sort((a, b) -> Long.compare(a.id(), b.id()));
        StringBuilder text = new StringBuilder();
        text.append(waiting.size()).append(" in flight");
        for (int i = 0; i < Math.min(limit, waiting.size()); i++) {
            Txn txn = waiting.get(i);
            text.append(i == 0 ? ": " : "; ")
                    .append(txn.id())
                    .append(txn.inGraph ? "" : " (read-only)")
                    .append(" on ")
                    .append(txn.worker.ref)
                    .append(txn.worker.node.live ? "" : " (departed)")
                    .append(txn.executed ? ", reported by it" : ", not reported by it")
                    .append(", waiting for ")
                    .append(pool.namesOf(txn.pending));
        }
        if (waiting.size() > limit) {
            text.append("; ...");
        }
        return text.toString();
    }

    /** Update transactions currently in the graph (in GARGAMEL mode, the conflict index's size too). */
    public int graphSize() {
        return graphSize;
    }

    /** Placed on {@code w} and not yet reported by its node; 0 for unknown or departed workers. */
    public int load(WorkerRef w) {
        return pool.load(w);
    }

    /** Live workers in tie-break order (node name, then index). */
    public List<WorkerRef> workers() {
        return pool.refs();
    }

    /** Transactions with any state left (graph, in-flight read-only): for leak tests. */
    int trackedTransactions() {
        return txns.size();
    }

    /** The conflict index's size: for tests. */
    int indexSize() {
        return index.size();
    }

    /** The session's transaction {@code after} if it is still in the graph (not yet visible everywhere), else null. */
    private Txn sessionWrite(long after) {
        if (after <= 0) {
            return null;
        }
        Txn previous = txns.get(after);
        return previous == null || !previous.inGraph ? null : previous;
    }

    /** {@code dependencies} and the session's write (from {@link #sessionWrite}; null: none), if not there yet. */
    private static long[] withSession(long[] dependencies, Txn session) {
        if (session == null) {
            return dependencies;
        }
        for (long dependency : dependencies) {
            if (dependency == session.id()) {
                return dependencies;
            }
        }
        long[] result = Arrays.copyOf(dependencies, dependencies.length + 1);
        result[dependencies.length] = session.id();
        return result;
    }

    /**
     * Drops back-dependencies already collected (the index never returns them; this is a guard) and leaves
     * the live ones' records in {@link #scratch}, in the same order.
     */
    private long[] liveDependencies(long[] dependencies) {
        if (scratch.length < dependencies.length) {
            scratch = new Txn[Math.max(dependencies.length, scratch.length * 2)];
        }
        int live = 0;
        for (long dependency : dependencies) {
            Txn t = txns.get(dependency);
            if (t != null && t.inGraph) {
                scratch[live++] = t;
            }
        }
        if (live == dependencies.length) {
            return dependencies.length == 0 ? NO_DEPENDENCIES : dependencies;
        }
        long[] result = new long[live];
        for (int i = 0; i < live; i++) {
            result[i] = scratch[i].id();
        }
        return result;
    }

    /**
     * Forgets a transaction every live node has reported. An update transaction leaves the graph and the
     * index only after its back-dependencies (the index requires it); if one is still there, it waits for it.
     */
    private void collect(Txn first) {
        ArrayDeque<Txn> work = collectWork; // reused: collect never re-enters itself
        work.add(first);
        while (!work.isEmpty()) {
            Txn txn = work.poll();
            if (!txn.inGraph) {
                txns.remove(txn.id());
                continue;
            }
            Txn blocking = null;
            for (long dependency : txn.placement.backDependencies()) {
                Txn before = txns.get(dependency);
                if (before != null && before.inGraph) {
                    blocking = before;
                    break;
                }
            }
            if (blocking != null) {
                if (blocking.waiters == null) {
                    blocking.waiters = new ArrayList<>(1);
                }
                blocking.waiters.add(txn);
                continue;
            }
            txn.inGraph = false;
            graphSize--;
            if (mode == Mode.GARGAMEL) {
                index.remove(txn.id());
            }
            txns.remove(txn.id());
            if (txn.waiters != null) {
                work.addAll(txn.waiters);
                txn.waiters = null;
            }
        }
    }
}
