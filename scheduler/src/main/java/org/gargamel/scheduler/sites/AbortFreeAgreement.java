package org.gargamel.scheduler.sites;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.WriteKey;

/**
 * The abort-free agreement (Janus-style; docs/multisite.md, Abort-free agreement): every site owns every row, and a
 * site places a call in the order calls reach it: its own calls when its clients send them, the others' when it reads
 * them from the log. Sites then order two concurrent calls differently, and the union of their placements has cycles:
 * a {@link DependencyGraph} runs each strongly connected group in one order every site finds. Every call waits for
 * every site's placement; none is ever run twice. A home call's own placement goes to the log beside its entry. A site
 * names every conflicting call it holds, the home site too, and forgets a call only once every node of it made it
 * visible, so a call placed without naming a forgotten one runs where it is visible; only a home call placed before
 * its scheduler read its own first entry back runs behind a barrier (see {@link #placeHome}).
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class AbortFreeAgreement extends PlacedByOwners {
    private final Set<String> every;
    private final DependencyGraph graph;

    /**
     * Each call this site holds, with the last writers the index gave it (kept transitive across calls that leave:
     * {@link #unchain}), and who names each.
     */
    private final Map<Long, long[]> chain = new HashMap<>();

    private final Map<Long, Set<Long>> chainedBy = new HashMap<>();

    /** Whether this scheduler has read one of its own entries back from the log. */
    private boolean readOwnEntry;

    /** Placements read ahead of an entry of their scheduler, held until it is read (in log order). */
    private final List<SitePlacement> placementsAhead = new ArrayList<>();

    /** The abort-free agreement among {@code sites} (this site among them): every site orders every call. */
    public AbortFreeAgreement(String site, Collection<String> sites) {
        super(site);
        this.every = Set.copyOf(sites);
        if (!every.contains(site)) {
            throw new IllegalArgumentException("site '" + site + "' is not one of the sites " + sites);
        }
        this.graph = new DependencyGraph(every);
    }

    /** Every site, for any key: every site owns every row. */
    @Override
    public Set<String> ownersOf(List<WriteKey> keys) {
        return keys.isEmpty() ? Set.of() : every;
    }

    /** No call is one site's alone. */
    @Override
    public boolean local(Set<String> owners) {
        return false;
    }

    /**
     * Places {@code txn} here now, in the order calls reach this site; the others place it when they read its entry.
     */
    @Override
    public Home placeHome(long txn, List<WriteKey> keys) {
        order.checkNew(txn);
        order.spanningCount++;
        order.appended.add(txn);
        order.indexed.add(txn);
        order.spanning.add(txn);
        OwnerOrder.Waiting home = new OwnerOrder.Waiting(Set.of(), false);
        // Placed before this scheduler read its own first entry back, it may not name a call its predecessor placed
        // (the log holds it, unread here) that every other site has forgotten but this site's node has not applied
        // yet: behind a barrier, the node applies every write-set logged before it runs (guarded by SitesIT's
        // take-over runs).
        home.behindABarrier = !readOwnEntry;
        order.waiting.put(txn, home);
        graph.add(txn);
        ScheduleEntry entry = order.nextEntry(txn, keys);
        return new Home.Announced(
                entry, new SitePlacement(order.site, txn, placeAfterAll(txn, keys), 0, 0, entry.sequence()));
    }

    /**
     * A call's entry read from the log. This scheduler's own call is placed already; another site's call, or one of
     * this site's an earlier scheduler placed, is placed now (after the calls this site holds).
     */
    @Override
    public List<Decision> read(ScheduleEntry entry) {
        List<Decision> decisions = new ArrayList<>(1);
        for (ScheduleEntry due : order.streams.accept(entry)) {
            readEntry(due, decisions);
        }
        releasePlacementsAhead(decisions);
        return decisions;
    }

    private void readEntry(ScheduleEntry due, List<Decision> decisions) {
        if (order.appended.remove(due.txn())) {
            readOwnEntry = true; // every entry committed before it has been read: this site's index is whole
            return;
        }
        if (!order.indexed.contains(due.txn())) {
            graph.add(due.txn());
            order.indexed.add(due.txn());
            order.spanning.add(due.txn());
            if (due.site().equals(order.site)) {
                order.waiting.put(due.txn(), new OwnerOrder.Waiting(Set.of(), true)); // settled if no node ran it
            } else {
                order.placedForOthersCount++;
            }
            // Every call of this site it names went to the log before its entries so far: readers wait for those.
            decisions.add(new Decision.Place(new SitePlacement(
                    order.site, due.txn(), placeAfterAll(due.txn(), due.keys()), 0, 0, order.nextSequence - 1)));
        }
    }

    /**
     * The schedule log committed a site's {@code placement}: the dispatch of every call of this site whose group it
     * made whole, once the entries of its scheduler that it may name are read.
     */
    @Override
    public List<Decision> read(SitePlacement placement) {
        order.noteOwn(placement);
        if (placement.entriesBefore() > order.streams.readUpTo(placement.owner(), placement.epoch())) {
            // It overtook an entry of its scheduler (sent again): it may name that call, not read yet.
            placementsAhead.add(placement);
            return List.of();
        }
        return readInOrder(placement);
    }

    private List<Decision> readInOrder(SitePlacement placement) {
        if (!graph.holds(placement.txn()) && !order.indexed.contains(placement.txn())) {
            // Its entry came before it, so this call was resolved and forgotten: a late copy (a successor placing it
            // again) must not bring it back, or every call naming it would wait for placements that never come
            // (guarded by OwnedAgreementTest).
            return List.of();
        }
        if (!graph.placed(placement.owner(), placement.txn(), placement.dependencies())) {
            return List.of();
        }
        List<Decision> decisions = new ArrayList<>();
        for (DependencyGraph.Resolved resolved : graph.resolve()) {
            OwnerOrder.Waiting call = order.waiting.remove(resolved.txn());
            if (call != null) {
                decisions.add(
                        call.orphan
                                ? new Decision.Orphaned(resolved.txn(), resolved.dependencies())
                                : new Decision.Dispatch(
                                        resolved.txn(), resolved.dependencies(), Map.of(), call.behindABarrier));
            }
        }
        return decisions;
    }

    /** The placements held back behind entries now read, in the order they came. */
    private void releasePlacementsAhead(List<Decision> decisions) {
        boolean released = true;
        while (released && !placementsAhead.isEmpty()) {
            released = false;
            for (Iterator<SitePlacement> held = placementsAhead.iterator(); held.hasNext(); ) {
                SitePlacement placement = held.next();
                if (placement.entriesBefore() <= order.streams.readUpTo(placement.owner(), placement.epoch())) {
                    held.remove();
                    decisions.addAll(readInOrder(placement));
                    released = true;
                }
            }
        }
    }

    /**
     * Places {@code txn} in this site's index and names every call it holds that {@code txn} conflicts with, not only
     * the last writers. A site's placements may come from two schedulers (a predecessor's in the log, its successor's
     * after): naming only the last writers relies on the successor's order being its predecessor's, and it is not (the
     * successor reads the calls in log order). Named directly, two calls this site holds are ordered whoever placed
     * them.
     */
    private long[] placeAfterAll(long txn, List<WriteKey> keys) {
        long[] lastWriters = order.index.add(txn, keys);
        chain.put(txn, lastWriters);
        for (long writer : lastWriters) {
            chainedBy.computeIfAbsent(writer, id -> new HashSet<>()).add(txn);
        }
        TreeSet<Long> all = new TreeSet<>();
        ArrayDeque<Long> next = new ArrayDeque<>();
        for (long writer : lastWriters) {
            next.add(writer);
        }
        while (!next.isEmpty()) {
            long at = next.poll();
            if (all.add(at)) {
                for (long before : chain.getOrDefault(at, new long[0])) {
                    next.add(before);
                }
            }
        }
        return all.stream().mapToLong(Long::longValue).toArray();
    }

    /** {@code txn} left the index; whoever named it names what it named, so nothing earlier is lost. */
    private void unchain(long txn) {
        long[] before = chain.remove(txn);
        Set<Long> namers = chainedBy.remove(txn);
        if (before == null) {
            return;
        }
        for (long writer : before) {
            Set<Long> of = chainedBy.get(writer);
            if (of != null) {
                of.remove(txn);
            }
        }
        if (namers == null) {
            return;
        }
        for (long namer : namers) {
            long[] named = chain.get(namer);
            if (named == null) {
                continue;
            }
            TreeSet<Long> spliced = new TreeSet<>();
            for (long id : named) {
                if (id != txn) {
                    spliced.add(id);
                }
            }
            for (long id : before) {
                if (chain.containsKey(id)) {
                    spliced.add(id);
                    chainedBy.computeIfAbsent(id, x -> new HashSet<>()).add(namer);
                }
            }
            chain.put(namer, spliced.stream().mapToLong(Long::longValue).toArray());
        }
    }

    /** Every node of this site has made {@code txn} visible: it leaves the graph and the index. */
    @Override
    public void forget(long txn) {
        graph.forget(txn);
        if (order.forget(txn)) {
            unchain(txn);
        }
    }

    /** Calls in the dependency graph (not yet resolved and forgotten). */
    public int graphSize() {
        return graph.size();
    }

    /** The oldest call of this site waiting longer than {@code patience}, and which site's placement it lacks. */
    @Override
    public Optional<String> stalled(Duration patience) {
        return order.stalled(
                patience, oldest -> graph.whyWaiting(oldest.getKey()).orElse("resolved"));
    }

    @Override
    public OwnedAgreement.Counters counters() {
        return new OwnedAgreement.Counters(
                order.localCount,
                order.spanningCount,
                order.placedForOthersCount,
                order.streams.duplicates(),
                order.streams.heldBack(),
                graph.groups(),
                graph.grouped(),
                graph.largestGroup());
    }
}
