package org.gargamel.scheduler.sites;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The abort-free agreement's graph of update calls (docs/multisite.md, Abort-free agreement; Janus, Mu et al., OSDI
 * 2016): every site places every call in the order calls reach it, and names the conflicting calls it placed before;
 * a call is <em>committed</em> once the schedule log holds every site's placement of it, and its dependencies are the
 * union of what they named. Sites see calls in different orders, so the union may have cycles.
 *
 * <p>A call is <em>resolved</em> once it and every call it reaches are committed: its strongly connected group is then
 * whole, and every site that resolves it finds the same group. Groups run in dependency order, and within a group in
 * the order of their transaction ids: a call's final dependencies are what it named outside its group and the members
 * of its group with a lower id. So no wait is circular and no call is ever run twice: what a collision costs here is
 * the wait for the placements, never a kill.
 *
 * <p>Its state is a function of the log alone: a placement counts only when read from the log, and only the first one
 * of each site for a call (a copy, or an earlier scheduler's placement and its successor's, count once everywhere).
 * A call leaves the graph once it is resolved and {@link #forget forgotten} (every node of this site made it visible):
 * its group is fixed by then, and no call it does not reach can join it. A dependency the graph does not hold is such a
 * call (a placement names a call only after the log holds the call's entry).
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
final class DependencyGraph {
    /** A call whose group is whole: run it after {@code dependencies}; {@code groupSize} members in its group. */
    // ArrayRecordComponent: handed on as is, never written.
    record Resolved(
            long txn,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
            int groupSize) {}

    private static final class Call {
        final Set<String> placedBy = new HashSet<>();
        final TreeSet<Long> dependencies = new TreeSet<>();
        boolean committed;
        boolean resolved;
        boolean forgotten;
    }

    private final Set<String> sites;
    private final Map<Long, Call> calls = new HashMap<>();

    private long resolvedCount;
    private long groups;
    private long grouped;
    private int largestGroup;

    DependencyGraph(Set<String> sites) {
        this.sites = Set.copyOf(sites);
        if (this.sites.isEmpty()) {
            throw new IllegalArgumentException("the abort-free agreement needs at least one site");
        }
    }

    /** Whether {@code txn} is in the graph (not yet resolved and forgotten). */
    boolean holds(long txn) {
        return calls.containsKey(txn);
    }

    /**
     * A call whose entry this site read (or its own, placed as it came): in the graph, not committed, from now on. A
     * placement that names it before any placement of it is read must find it here, or the call naming it would be
     * resolved as if it were long gone.
     */
    void add(long txn) {
        calls.computeIfAbsent(txn, id -> new Call());
    }

    /**
     * The log holds {@code site}'s placement of {@code txn} after {@code dependencies}: whether it committed the call
     * (it was the last site's). A second placement of one site counts for nothing.
     */
    boolean placed(String site, long txn, long[] dependencies) {
        Objects.requireNonNull(site, "site");
        if (!sites.contains(site)) {
            throw new IllegalArgumentException("a placement of transaction " + txn + " by '" + site
                    + "', which is not a site of the abort-free agreement " + new TreeSet<>(sites));
        }
        Call call = calls.computeIfAbsent(txn, id -> new Call());
        if (call.committed || !call.placedBy.add(site)) {
            return false;
        }
        for (long dependency : dependencies) {
            if (dependency != txn) {
                call.dependencies.add(dependency);
            }
        }
        call.committed = call.placedBy.containsAll(sites);
        return call.committed;
    }

    /**
     * The calls resolved now, dependencies first (each group's members in id order): every committed call that reaches
     * no call still waiting for a placement.
     */
    List<Resolved> resolve() {
        // Calls that reach an uncommitted one wait: walk back from each uncommitted call along who names it.
        Map<Long, List<Long>> namedBy = new HashMap<>();
        ArrayDeque<Long> blocked = new ArrayDeque<>();
        Set<Long> waiting = new HashSet<>();
        for (Map.Entry<Long, Call> entry : calls.entrySet()) {
            Call call = entry.getValue();
            if (call.resolved) {
                continue;
            }
            if (!call.committed) {
                blocked.add(entry.getKey());
                waiting.add(entry.getKey());
                continue;
            }
            for (long dependency : call.dependencies) {
                Call named = calls.get(dependency);
                if (named != null && !named.resolved) {
                    namedBy.computeIfAbsent(dependency, id -> new ArrayList<>()).add(entry.getKey());
                }
            }
        }
        while (!blocked.isEmpty()) {
            for (long dependent : namedBy.getOrDefault(blocked.poll(), List.of())) {
                if (waiting.add(dependent)) {
                    blocked.add(dependent);
                }
            }
        }
        List<Long> ready = new ArrayList<>();
        for (Map.Entry<Long, Call> entry : calls.entrySet()) {
            if (!entry.getValue().resolved && !waiting.contains(entry.getKey())) {
                ready.add(entry.getKey());
            }
        }
        if (ready.isEmpty()) {
            return List.of();
        }
        ready.sort(null); // the walk's order does not change the groups, only the order of independent ones
        List<Resolved> out = new ArrayList<>(ready.size());
        for (List<Long> group : new Components(ready).inDependencyOrder()) {
            resolveGroup(group, out);
        }
        return out;
    }

    private void resolveGroup(List<Long> group, List<Resolved> out) {
        group.sort(null);
        Set<Long> members = new HashSet<>(group);
        if (group.size() > 1) {
            groups++;
            grouped += group.size();
            largestGroup = Math.max(largestGroup, group.size());
        }
        for (int i = 0; i < group.size(); i++) {
            long txn = group.get(i);
            Call call = calls.get(txn);
            TreeSet<Long> dependencies = new TreeSet<>();
            for (long dependency : call.dependencies) {
                if (!members.contains(dependency)) {
                    dependencies.add(dependency);
                }
            }
            dependencies.addAll(group.subList(0, i)); // the group's members with a lower id run first
            call.resolved = true;
            resolvedCount++;
            out.add(new Resolved(
                    txn, dependencies.stream().mapToLong(Long::longValue).toArray(), group.size()));
        }
        for (long txn : group) {
            if (calls.get(txn).forgotten) {
                calls.remove(txn);
            }
        }
    }

    /**
     * Every node of this site made {@code txn} visible: it leaves the graph once resolved (now, if it is). Unknown ids
     * are ignored.
     */
    void forget(long txn) {
        Call call = calls.get(txn);
        if (call == null) {
            return;
        }
        if (call.resolved) {
            calls.remove(txn);
        } else {
            call.forgotten = true;
        }
    }

    int size() {
        return calls.size();
    }

    /**
     * Why {@code txn} is not resolved (for a stalled call's log line): the nearest call it reaches that some site has
     * not placed yet, and which sites those are; empty if it is resolved or unknown.
     */
    java.util.Optional<String> whyWaiting(long txn) {
        Call start = calls.get(txn);
        if (start == null || start.resolved) {
            return java.util.Optional.empty();
        }
        ArrayDeque<Long> next = new ArrayDeque<>(List.of(txn));
        Set<Long> seen = new HashSet<>(next);
        while (!next.isEmpty()) {
            long at = next.poll();
            Call call = calls.get(at);
            if (!call.committed) {
                Set<String> missing = new TreeSet<>(sites);
                missing.removeAll(call.placedBy);
                return java.util.Optional.of((at == txn ? "it" : "call " + at + ", which it reaches,")
                        + " lacks the placement of " + missing);
            }
            for (long dependency : call.dependencies) {
                Call named = calls.get(dependency);
                if (named != null && !named.resolved && seen.add(dependency)) {
                    next.add(dependency);
                }
            }
        }
        return java.util.Optional.of("every call it reaches is committed (it is resolved at the next placement)");
    }

    long resolvedCount() {
        return resolvedCount;
    }

    /** Groups of two calls or more resolved so far: the dependency cycles the sites' orders made. */
    long groups() {
        return groups;
    }

    /** Calls resolved in a group of two or more. */
    long grouped() {
        return grouped;
    }

    int largestGroup() {
        return largestGroup;
    }

    /**
     * Tarjan's strongly connected components of the ready calls, iteratively (a chain of calls on one hot row may be
     * long): a component comes out after every component it reaches, which is the order to run them in.
     */
    private final class Components {
        private final Set<Long> within;
        private final Map<Long, Integer> index = new HashMap<>();
        private final Map<Long, Integer> low = new HashMap<>();
        private final ArrayDeque<Long> stack = new ArrayDeque<>();
        private final Set<Long> onStack = new HashSet<>();
        private final List<List<Long>> out = new ArrayList<>();
        private int next;

        Components(List<Long> ready) {
            this.within = new HashSet<>(ready);
        }

        List<List<Long>> inDependencyOrder() {
            for (long start : within.stream().sorted().toList()) {
                if (!index.containsKey(start)) {
                    visit(start);
                }
            }
            return out;
        }

        private long[] edges(long txn) {
            return calls.get(txn).dependencies.stream()
                    .mapToLong(Long::longValue)
                    .filter(within::contains)
                    .toArray();
        }

        private void visit(long start) {
            // Each frame: the call and how far through its edges the walk is.
            ArrayDeque<long[]> frames = new ArrayDeque<>();
            Map<Long, long[]> edgesOf = new HashMap<>();
            open(start, frames, edgesOf);
            while (!frames.isEmpty()) {
                long[] frame = frames.peek();
                long txn = frame[0];
                long[] edges = edgesOf.get(txn);
                if (frame[1] < edges.length) {
                    long to = edges[(int) frame[1]++];
                    if (!index.containsKey(to)) {
                        open(to, frames, edgesOf);
                    } else if (onStack.contains(to)) {
                        low.put(txn, Math.min(low.get(txn), index.get(to)));
                    }
                    continue;
                }
                frames.pop();
                if (!frames.isEmpty()) {
                    long parent = frames.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(txn)));
                }
                if (low.get(txn).equals(index.get(txn))) {
                    List<Long> component = new ArrayList<>();
                    long member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    } while (member != txn);
                    out.add(component);
                }
            }
        }

        private void open(long txn, ArrayDeque<long[]> frames, Map<Long, long[]> edgesOf) {
            index.put(txn, next);
            low.put(txn, next);
            next++;
            stack.push(txn);
            onStack.add(txn);
            edgesOf.put(txn, edges(txn));
            frames.push(new long[] {txn, 0});
        }
    }

    @Override
    public String toString() {
        return "DependencyGraph[calls=" + calls.size() + ", sites=" + new TreeSet<>(sites) + ", resolved="
                + resolvedCount + ", groups=" + groups + "]";
    }

    /** For tests: a call's dependencies as the placements so far name them. */
    long[] dependenciesOf(long txn) {
        Call call = calls.get(txn);
        return call == null
                ? new long[0]
                : call.dependencies.stream().mapToLong(Long::longValue).toArray();
    }
}
