package org.gargamel.scheduler.sites;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.WriteKey;

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
 * and before every later one, and appends a {@link SitePlacement} naming the calls it placed it after; its home site
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
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class OwnedAgreement extends PlacedByOwners {
    /** The sites whose rows a key may name: its owner's alone, or every site when its owning part is unknown. */
    @FunctionalInterface
    public interface Ownership {
        Set<String> ownersOf(WriteKey key);
    }

    /**
     * What a site placed by owners counted so far. Abort-free only: {@code groups}, the dependency cycles resolved here
     * (strongly connected groups of two calls or more), {@code grouped} the calls in them, {@code largestGroup} the
     * largest; 0 with site-owned classes.
     */
    public record Counters(
            long local,
            long spanning,
            long placedForOthers,
            long duplicates,
            long heldBack,
            long groups,
            long grouped,
            int largestGroup)
            implements Agreement.Counters {}

    private final Ownership ownership;

    public OwnedAgreement(String site, Ownership ownership) {
        super(site);
        this.ownership = Objects.requireNonNull(ownership, "ownership");
    }

    @Override
    public Set<String> ownersOf(List<WriteKey> keys) {
        Set<String> owners = new LinkedHashSet<>();
        for (WriteKey key : keys) {
            owners.addAll(ownership.ownersOf(key));
        }
        return owners;
    }

    @Override
    public boolean local(Set<String> owners) {
        return owners.isEmpty() || owners.equals(Set.of(order.site));
    }

    /** Places home update call {@code txn} writing {@code keys}: local (dispatch now) or spanning (to the log). */
    @Override
    public Home placeHome(long txn, List<WriteKey> keys) {
        order.checkNew(txn);
        if (ownersOf(keys).equals(Set.of(order.site))) {
            order.localCount++;
            order.indexed.add(txn);
            return new Home.Local(order.index.add(txn, keys));
        }
        order.spanningCount++;
        order.appended.add(txn);
        return new Home.Spanning(order.nextEntry(txn, keys));
    }

    /**
     * The schedule log committed the spanning call {@code entry} (entries come in log order): what this site must do
     * for it (and for entries of its stream it releases), if anything.
     */
    @Override
    public List<Decision> read(ScheduleEntry entry) {
        List<Decision> decisions = new ArrayList<>(1);
        for (ScheduleEntry due : order.streams.accept(entry)) {
            boolean home = due.site().equals(order.site);
            Set<String> owners = ownersOf(due.keys());
            if (!home && !owners.contains(order.site)) {
                continue; // none of this site's rows: nothing to order here
            }
            long[] dependencies = order.index.add(due.txn(), due.keys());
            order.indexed.add(due.txn());
            order.spanning.add(due.txn());
            if (!home) {
                order.placedForOthersCount++;
                decisions.add(new Decision.Place(new SitePlacement(order.site, due.txn(), dependencies)));
                continue;
            }
            Set<String> others = new HashSet<>(owners);
            others.remove(order.site);
            OwnerOrder.Waiting call = new OwnerOrder.Waiting(others, !order.appended.remove(due.txn()));
            for (long dependency : dependencies) {
                call.dependencies.add(dependency);
            }
            order.waiting.put(due.txn(), call);
            decideIfPlaced(due.txn(), call, decisions);
        }
        return decisions;
    }

    /**
     * The schedule log committed an owner's {@code placement} (in log order, so after the call's own entry): the
     * dispatch of this site's call once it is the last owner's. A copy, or a placement of another site's call, changes
     * nothing.
     */
    @Override
    public List<Decision> read(SitePlacement placement) {
        order.noteOwn(placement);
        OwnerOrder.Waiting call = order.waiting.get(placement.txn());
        if (call == null || !call.owners.remove(placement.owner())) {
            return List.of();
        }
        for (long dependency : placement.dependencies()) {
            call.dependencies.add(dependency);
        }
        placement.acknowledgement().shippedBefore(placement, call.shippedBefore);
        List<Decision> decisions = new ArrayList<>(1);
        decideIfPlaced(placement.txn(), call, decisions);
        return decisions;
    }

    private void decideIfPlaced(long txn, OwnerOrder.Waiting call, List<Decision> decisions) {
        if (!call.owners.isEmpty()) {
            return;
        }
        order.waiting.remove(txn);
        long[] dependencies =
                call.dependencies.stream().mapToLong(Long::longValue).toArray();
        decisions.add(
                call.orphan
                        ? new Decision.Orphaned(txn, dependencies)
                        : new Decision.Dispatch(txn, dependencies, Map.copyOf(call.shippedBefore), true));
    }

    /** Every node of this site has made {@code txn} visible: it leaves the index. Unknown ids are ignored. */
    @Override
    public void forget(long txn) {
        order.forget(txn);
    }

    /** The oldest call of this site waiting longer than {@code patience}, and whose placement it lacks. */
    @Override
    public Optional<String> stalled(Duration patience) {
        return order.stalled(
                patience, oldest -> "it lacks the placement of " + new TreeSet<>(oldest.getValue().owners));
    }

    @Override
    public Counters counters() {
        return new Counters(
                order.localCount,
                order.spanningCount,
                order.placedForOthersCount,
                order.streams.duplicates(),
                order.streams.heldBack(),
                0,
                0,
                0);
    }
}
