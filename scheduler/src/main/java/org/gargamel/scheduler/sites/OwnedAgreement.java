package org.gargamel.scheduler.sites;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.WriteKey;
import org.gargamel.classifier.index.ConflictIndex;

/**
 * One site's side of scheduling with site-owned conflict classes (docs/multisite.md, Site-owned conflict classes):
 * every row belongs to one site, and only that site orders the calls that write it.
 *
 * <p><b>A local call</b> (every key it may write is this site's) is placed here alone, after the site's earlier calls
 * on its keys, and dispatched at once with final back-dependencies: it never waits for the schedule log. No other site
 * can place a call on its rows without this site placing it too, so nothing can collide with it.
 *
 * <p><b>A spanning call</b> (a key of another site, or one whose owning part is unknown) goes to the schedule log. Every
 * site that owns one of its keys places it when it reads it there, after its own calls on those keys placed so far
 * and before every later one, and appends a {@link Placement} naming the calls it placed it after; its home site
 * places it too. Once every owner's placement is in, the home site dispatches it after the union of what they named
 * ({@link Decision.Dispatch}). Owners place spanning calls in the log's order (the home site's own entries in its
 * stream's order), so no two owners order two spanning calls differently, and a local call is ordered only by its
 * one owner: the union of the sites' orders has no cycle.
 *
 * <p><b>Forgetting.</b> A call leaves this site's index once every node of this site has made it visible
 * ({@link #forget}; a node reports its own call only once the write-set log holds it). A spanning call placed later
 * then no longer names it, so its node must have applied it before it runs: it is dispatched behind a barrier (its
 * node waits until it has applied the write-set log as far as the log was when it got the call), and every call this
 * site forgot was in the log before that.
 *
 * <p><b>Abort-free</b> ({@link #abortFree}; docs/multisite.md, Abort-free agreement): every site owns every row, and a
 * site places a call in the order calls reach it: its own calls when its clients send them, the others' when it reads
 * them from the log. Sites then order two concurrent calls differently, and the union of their placements has cycles:
 * a {@link DependencyGraph} runs each strongly connected group in one order every site finds (Janus). Every call waits
 * for every site's placement; none is ever run twice. A home call's own placement goes to the log beside its entry.
 * A site names every conflicting call it holds, the home site too, and forgets a call only once every node of it made
 * it visible, so a call placed without naming a forgotten one runs where it is visible; only a home call placed before
 * its scheduler read its own first entry back runs behind a barrier (see placeHome).
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class OwnedAgreement {
    /** The sites whose rows a key may name: its owner's alone, or every site when its owning part is unknown. */
    @FunctionalInterface
    public interface Ownership {
        Set<String> ownersOf(WriteKey key);
    }

    /** What placing a home update call gives. */
    public sealed interface Home {
        /** Every key is this site's: dispatch it now after {@code dependencies}; it commits without the log. */
        // ArrayRecordComponent: handed to the node as is, never written.
        record Local(
                @SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Home {}

        /**
         * It may write another site's rows: append {@code entry} (abort-free: then this site's {@code own} placement of
         * it; null otherwise); it is dispatched once every owner placed it.
         */
        record Spanning(ScheduleEntry entry, Placement own) implements Home {}
    }

    /**
     * An owner's word in the schedule log: it placed {@code txn} after {@code dependencies} (its own order), when its
     * nodes had come to {@code logPosition} in its site's write-set log (a log per site; else 0). Abort-free: when its
     * scheduler (of {@code epoch}) had appended {@code entriesBefore} entries (see {@link SchedulePlacement}).
     */
    // ArrayRecordComponent: read, never written.
    public record Placement(
            String owner,
            long txn,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
            long logPosition,
            long epoch,
            long entriesBefore) {
        public Placement {
            Objects.requireNonNull(owner, "owner");
        }

        public Placement(String owner, long txn, long[] dependencies, long logPosition) {
            this(owner, txn, dependencies, logPosition, 0, 0);
        }

        public Placement(String owner, long txn, long[] dependencies) {
            this(owner, txn, dependencies, 0);
        }
    }

    /** What reading the log calls for. */
    public sealed interface Decision {
        long txn();

        /** This site owns rows of another site's spanning call and placed it: append {@code placement} to the log. */
        record Place(Placement placement) implements Decision {
            @Override
            public long txn() {
                return placement.txn();
            }
        }

        /**
         * A spanning call of this site that every owner has placed: dispatch it after {@code dependencies}, behind the
         * barrier ({@code barrier}: site-owned classes; abort-free, only a call placed before its scheduler read its own first
         * entry back), which with a write-set log
         * per site also waits for what each other owner had logged when it placed the call ({@code shippedBefore}: site
         * to log position).
         */
        // ArrayRecordComponent: handed to the node as is, never written.
        record Dispatch(
                long txn,
                @SuppressWarnings("ArrayRecordComponent") long[] dependencies,
                Map<String, Long> shippedBefore,
                boolean barrier)
                implements Decision {}

        /**
         * A spanning call of this site that an earlier scheduler of the site appended, every owner's placement in: it
         * is settled if no node of the site ran it (docs/multisite.md, A site scheduler's failover).
         */
        // ArrayRecordComponent: read, never written.
        record Orphaned(
                long txn,
                @SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Decision {}
    }

    /**
     * What this site counted so far. Abort-free only: {@code groups}, the dependency cycles resolved here (strongly
     * connected groups of two calls or more), {@code grouped} the calls in them, {@code largestGroup} the largest.
     */
    public record Counters(
            long local,
            long spanning,
            long placedForOthers,
            long duplicates,
            long heldBack,
            long groups,
            long grouped,
            int largestGroup) {}

    /** A spanning call of this site waiting for its owners' placements. */
    private static final class Waiting {
        final Set<String> owners;
        final TreeSet<Long> dependencies = new TreeSet<>();
        /** The other owners' log positions, from their placements. */
        final Map<String, Long> shippedBefore = new HashMap<>();

        final boolean orphan;
        /** Abort-free: placed before this scheduler had read the log up to its own first entry (see placeHome). */
        boolean behindABarrier;
        /** When this scheduler began to wait for it ({@link System#nanoTime}). */
        final long since = System.nanoTime();

        Waiting(Set<String> owners, boolean orphan) {
            this.owners = owners;
            this.orphan = orphan;
        }
    }

    private final String site;
    private final Ownership ownership;
    /** The abort-free agreement's graph of every call's placements; null with site-owned classes. */
    private final DependencyGraph graph;

    private final ConflictIndex index = new ConflictIndex();
    /** The calls in {@link #index}. */
    private final Set<Long> indexed = new HashSet<>();
    /** The spanning calls among them (read from the log), and those this site's placement of was read back. */
    private final Set<Long> spanning = new HashSet<>();

    private final Set<Long> placedByThisSite = new HashSet<>();
    /** This scheduler's spanning calls appended and not yet read back from the log. */
    private final Set<Long> appended = new HashSet<>();
    /** This site's spanning calls read from the log, waiting for other owners' placements. */
    private final Map<Long, Waiting> waiting = new HashMap<>();

    private final SiteStreams streams = new SiteStreams();
    /**
     * Abort-free: each call this site holds, with the last writers the index gave it (kept transitive across calls that
     * leave: {@link #unchain}), and who names each.
     */
    private final Map<Long, long[]> chain = new HashMap<>();

    private final Map<Long, Set<Long>> chainedBy = new HashMap<>();

    /**
     * Abort-free: places {@code txn} in this site's index and names every call it holds that {@code txn} conflicts with,
     * not only the last writers. A site's placements may come from two schedulers (a predecessor's in the log, its
     * successor's after): naming only the last writers relies on the successor's order being its predecessor's, and
     * it is not (the successor reads the calls in log order). SitesIT lost an update so, with both sites' schedulers
     * killed in turn. Named directly, two calls this site holds are ordered whoever placed them.
     */
    private long[] placeAfterAll(long txn, List<WriteKey> keys) {
        long[] lastWriters = index.add(txn, keys);
        chain.put(txn, lastWriters);
        for (long writer : lastWriters) {
            chainedBy.computeIfAbsent(writer, id -> new HashSet<>()).add(txn);
        }
        TreeSet<Long> all = new TreeSet<>();
        java.util.ArrayDeque<Long> next = new java.util.ArrayDeque<>();
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

    /** Abort-free: {@code txn} left the index; whoever named it names what it named, so nothing earlier is lost. */
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

    /** Abort-free: whether this scheduler has read one of its own entries back from the log. */
    private boolean readOwnEntry;

    /** Abort-free: placements read ahead of an entry of their scheduler, held until it is read (in log order). */
    private final List<Placement> placementsAhead = new ArrayList<>();

    private long nextSequence = 1;
    private long localCount;
    private long spanningCount;
    private long placedForOthersCount;

    public OwnedAgreement(String site, Ownership ownership) {
        this(site, ownership, null);
    }

    private OwnedAgreement(String site, Ownership ownership, DependencyGraph graph) {
        this.site = Objects.requireNonNull(site, "site");
        this.ownership = Objects.requireNonNull(ownership, "ownership");
        this.graph = graph;
    }

    /** The abort-free agreement among {@code sites} (this site among them): every site orders every call. */
    public static OwnedAgreement abortFree(String site, java.util.Collection<String> sites) {
        Set<String> every = Set.copyOf(sites);
        if (!every.contains(site)) {
            throw new IllegalArgumentException("site '" + site + "' is not one of the sites " + sites);
        }
        return new OwnedAgreement(site, key -> every, new DependencyGraph(every));
    }

    /** Whether this is the abort-free agreement (Janus-style), not site-owned classes. */
    public boolean isAbortFree() {
        return graph != null;
    }

    public String site() {
        return site;
    }

    /** The sites that own a key of {@code keys} (in the order met). */
    public Set<String> ownersOf(List<WriteKey> keys) {
        Set<String> owners = new LinkedHashSet<>();
        for (WriteKey key : keys) {
            owners.addAll(ownership.ownersOf(key));
        }
        return owners;
    }

    /** Places home update call {@code txn} writing {@code keys}: local (dispatch now) or spanning (to the log). */
    public Home placeHome(long txn, List<WriteKey> keys) {
        if (indexed.contains(txn) || appended.contains(txn)) {
            throw new IllegalArgumentException("transaction " + txn + " is already placed at site " + site);
        }
        Set<String> owners = ownersOf(keys);
        if (graph != null) {
            // Placed here now, in the order calls reach this site; the others place it when they read its entry.
            spanningCount++;
            appended.add(txn);
            indexed.add(txn);
            spanning.add(txn);
            Waiting home = new Waiting(Set.of(), false);
            // Placed before this scheduler read its own first entry back, it may not name a call its predecessor
            // placed (the log holds it, unread here) that every other site has forgotten but this site's node has not
            // applied yet: behind a barrier, the node applies every write-set logged before it runs (SitesIT ran two
            // New-Orders of one district at once so, after a take-over, and the nodes stopped on a duplicate order).
            home.behindABarrier = !readOwnEntry;
            waiting.put(txn, home);
            graph.add(txn);
            ScheduleEntry entry = new ScheduleEntry(site, nextSequence++, txn, keys);
            return new Home.Spanning(entry, new Placement(site, txn, placeAfterAll(txn, keys), 0, 0, entry.sequence()));
        }
        if (owners.equals(Set.of(site))) {
            localCount++;
            indexed.add(txn);
            return new Home.Local(index.add(txn, keys));
        }
        spanningCount++;
        appended.add(txn);
        return new Home.Spanning(new ScheduleEntry(site, nextSequence++, txn, keys), null);
    }

    /**
     * The schedule log committed the spanning call {@code entry} (entries come in log order): what this site must do
     * for it (and for entries of its stream it releases), if anything.
     */
    public List<Decision> read(ScheduleEntry entry) {
        List<Decision> decisions = new ArrayList<>(1);
        if (graph != null) {
            for (ScheduleEntry due : streams.accept(entry)) {
                readAbortFree(due, decisions);
            }
            releasePlacementsAhead(decisions);
            return decisions;
        }
        for (ScheduleEntry due : streams.accept(entry)) {
            boolean home = due.site().equals(site);
            Set<String> owners = ownersOf(due.keys());
            if (!home && !owners.contains(site)) {
                continue; // none of this site's rows: nothing to order here
            }
            long[] dependencies = index.add(due.txn(), due.keys());
            indexed.add(due.txn());
            spanning.add(due.txn());
            if (!home) {
                placedForOthersCount++;
                decisions.add(new Decision.Place(new Placement(site, due.txn(), dependencies)));
                continue;
            }
            Set<String> others = new HashSet<>(owners);
            others.remove(site);
            Waiting call = new Waiting(others, !appended.remove(due.txn()));
            for (long dependency : dependencies) {
                call.dependencies.add(dependency);
            }
            waiting.put(due.txn(), call);
            decideIfPlaced(due.txn(), call, decisions);
        }
        return decisions;
    }

    /**
     * Abort-free: a call's entry read from the log. This scheduler's own call is placed already; another site's call,
     * or one of this site's an earlier scheduler placed, is placed now (after the calls this site holds).
     */
    private void readAbortFree(ScheduleEntry due, List<Decision> decisions) {
        if (appended.remove(due.txn())) {
            readOwnEntry = true; // every entry committed before it has been read: this site's index is whole
            return;
        }
        if (!indexed.contains(due.txn())) {
            graph.add(due.txn());
            indexed.add(due.txn());
            spanning.add(due.txn());
            if (due.site().equals(site)) {
                waiting.put(due.txn(), new Waiting(Set.of(), true)); // settled if no node of this site ran it
            } else {
                placedForOthersCount++;
            }
            // Every call of this site it names went to the log before its entries so far: readers wait for those.
            decisions.add(new Decision.Place(
                    new Placement(site, due.txn(), placeAfterAll(due.txn(), due.keys()), 0, 0, nextSequence - 1)));
        }
    }

    /**
     * The schedule log committed an owner's {@code placement} (in log order, so after the call's own entry): the
     * dispatch of this site's call once it is the last owner's. A copy, or a placement of another site's call, changes
     * nothing. Abort-free: the dispatch of every call of this site whose group it made whole.
     */
    public List<Decision> read(Placement placement) {
        if (placement.owner().equals(site) && indexed.contains(placement.txn())) {
            placedByThisSite.add(placement.txn());
        }
        if (graph != null) {
            if (placement.entriesBefore() > streams.readUpTo(placement.owner(), placement.epoch())) {
                // It overtook an entry of its scheduler (sent again): it may name that call, not read yet.
                placementsAhead.add(placement);
                return List.of();
            }
            return readAbortFree(placement);
        }
        Waiting call = waiting.get(placement.txn());
        if (call == null || !call.owners.remove(placement.owner())) {
            return List.of();
        }
        for (long dependency : placement.dependencies()) {
            call.dependencies.add(dependency);
        }
        if (placement.logPosition() > 0) {
            call.shippedBefore.put(placement.owner(), placement.logPosition());
        }
        List<Decision> decisions = new ArrayList<>(1);
        decideIfPlaced(placement.txn(), call, decisions);
        return decisions;
    }

    /** Abort-free: a placement read in its stream's order (after the entries of its scheduler that it may name). */
    private List<Decision> readAbortFree(Placement placement) {
        if (!graph.holds(placement.txn()) && !indexed.contains(placement.txn())) {
            // Its entry came before it, so this call was resolved and forgotten: a late copy (a successor placing it
            // again) must not bring it back, or every call naming it would wait for placements that never come (chaos
            // stalled so once).
            return List.of();
        }
        if (!graph.placed(placement.owner(), placement.txn(), placement.dependencies())) {
            return List.of();
        }
        List<Decision> decisions = new ArrayList<>();
        for (DependencyGraph.Resolved resolved : graph.resolve()) {
            Waiting call = waiting.remove(resolved.txn());
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

    /** Abort-free: the placements held back behind entries now read, in the order they came. */
    private void releasePlacementsAhead(List<Decision> decisions) {
        boolean released = true;
        while (released && !placementsAhead.isEmpty()) {
            released = false;
            for (java.util.Iterator<Placement> held = placementsAhead.iterator(); held.hasNext(); ) {
                Placement placement = held.next();
                if (placement.entriesBefore() <= streams.readUpTo(placement.owner(), placement.epoch())) {
                    held.remove();
                    decisions.addAll(readAbortFree(placement));
                    released = true;
                }
            }
        }
    }

    private void decideIfPlaced(long txn, Waiting call, List<Decision> decisions) {
        if (!call.owners.isEmpty()) {
            return;
        }
        waiting.remove(txn);
        long[] dependencies =
                call.dependencies.stream().mapToLong(Long::longValue).toArray();
        decisions.add(
                call.orphan
                        ? new Decision.Orphaned(txn, dependencies)
                        : new Decision.Dispatch(txn, dependencies, Map.copyOf(call.shippedBefore), true));
    }

    /** Every node of this site has made {@code txn} visible: it leaves the index. Unknown ids are ignored. */
    public void forget(long txn) {
        if (graph != null) {
            graph.forget(txn);
        }
        if (indexed.remove(txn)) {
            index.remove(txn);
            if (graph != null) {
                unchain(txn);
            }
            spanning.remove(txn);
            placedByThisSite.remove(txn);
        }
    }

    /** Whether a placement of {@code txn} by this site (this scheduler's or an earlier one's) is in the log. */
    public boolean placedHere(long txn) {
        return placedByThisSite.contains(txn);
    }

    /** Whether {@code txn} is a spanning call read from the log and not forgotten. */
    public boolean isSpanning(long txn) {
        return spanning.contains(txn);
    }

    /** Whether {@code txn} is in this site's order and not forgotten yet. */
    public boolean knows(long txn) {
        return indexed.contains(txn);
    }

    /** This site's spanning calls not yet dispatched: appended and not read back, or waiting for owners. */
    public int pending() {
        return appended.size() + waiting.size();
    }

    /** Calls in this site's order, not yet forgotten. */
    public int size() {
        return indexed.size();
    }

    /**
     * The oldest of this site's calls not yet dispatched that has waited longer than {@code patience}, and what it
     * waits for (a site's placement, of it or of a call it reaches); empty if none has.
     */
    public java.util.Optional<String> stalled(java.time.Duration patience) {
        long now = System.nanoTime();
        Map.Entry<Long, Waiting> oldest = null;
        for (Map.Entry<Long, Waiting> call : waiting.entrySet()) {
            if (oldest == null || call.getValue().since < oldest.getValue().since) {
                oldest = call;
            }
        }
        if (oldest == null || now - oldest.getValue().since < patience.toNanos()) {
            return java.util.Optional.empty();
        }
        long txn = oldest.getKey();
        String why = graph != null
                ? graph.whyWaiting(txn).orElse("resolved")
                : "it lacks the placement of " + new TreeSet<>(oldest.getValue().owners);
        return java.util.Optional.of("call " + txn + (oldest.getValue().orphan ? " (an earlier scheduler's)" : "")
                + " has waited " + (now - oldest.getValue().since) / 1_000_000 + " ms for its place: " + why + "; "
                + waiting.size() + " call(s) of this site wait");
    }

    /** Abort-free: calls in the dependency graph (not yet resolved and forgotten); 0 otherwise. */
    public int graphSize() {
        return graph == null ? 0 : graph.size();
    }

    public Counters counters() {
        return new Counters(
                localCount,
                spanningCount,
                placedForOthersCount,
                streams.duplicates(),
                streams.heldBack(),
                graph == null ? 0 : graph.groups(),
                graph == null ? 0 : graph.grouped(),
                graph == null ? 0 : graph.largestGroup());
    }
}
