package org.gargamel.scheduler.sites;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import org.gargamel.classifier.WriteKey;
import org.gargamel.classifier.index.ConflictIndex;

/**
 * One site's side of multi-site scheduling (docs/multisite.md; thesis ch. 4, Alg 2): places the site's home calls
 * against what the site knows, and reads the schedule log, which every site reads in one order, to learn where each
 * call really goes.
 *
 * <p><b>The agreed order is the log's.</b> Every site feeds the log's entries, in log order, to its own
 * {@link ConflictIndex}: a call's agreed back-dependencies are the last conflicting writers before it in the log, the
 * same at every site. No vote picks a winner among colliding calls: the one the log holds first wins, and the other
 * keeps its place in the log but runs again after it.
 *
 * <p><b>Home calls run before the log has placed them</b> ({@link AgreementMode#OPTIMISTIC}). A home call is placed at
 * once in the site's view (the log's entries as far as the site has read them, then its own calls not yet back from
 * the log, in the order it placed them) and dispatched with those provisional back-dependencies; its entry goes to the
 * log at the same time. When the log hands the entry back, the call <em>collided</em> if its agreed
 * back-dependencies name a call it was not placed after: a conflicting call of another site that the log holds
 * between what this site had read and this call. Its node then runs it again after the agreed ones; otherwise the
 * node may commit it. Because a node commits a call only once its place is known, and only after its agreed
 * back-dependencies are visible there, every pair of conflicting calls commits in the log's order at every replica.
 *
 * <p>The view is only a guess, so it decides speed, never correctness. When another site's call comes back from the
 * log in conflict with home calls still pending, the log holds it before them: they are placed again on top of it in
 * the view (a <em>restack</em>), so later home calls bet on them, not on the call they will run after.
 *
 * <p><b>Forgetting.</b> A call leaves both indexes once every replica of every site has made it visible
 * ({@link #forget}), but not while a home call placed before this site learned of it is still pending: that call's
 * agreed back-dependencies must still name it to find the collision (it may have run before the call was applied).
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class LogOrderAgreement implements Agreement {
    /** What this site counted so far. */
    public record Counters(
            long placed, long agreed, long confirmed, long collided, long restacks, long duplicates, long heldBack)
            implements Agreement.Counters {}

    @SuppressWarnings("ArrayRecordComponent") // never compared: kept by transaction id
    private record Pending(ScheduleEntry entry, long stamp, long[] provisionalDependencies) {}

    private record Forgettable(long txn, long learned) {}

    private final String site;
    private final AgreementMode mode;
    private final ConflictIndex agreed;
    /** The site's view ({@link AgreementMode#OPTIMISTIC} only): log entries as read, then pending home calls. */
    private final ConflictIndex view;

    /** Home calls appended and not yet back from the log, in the order they were placed. */
    private final LinkedHashMap<Long, Pending> pending = new LinkedHashMap<>();
    /** For every call in the indexes, when this site learned of it (a tick of {@link #clock}). */
    private final Map<Long, Long> learned = new HashMap<>();
    /** Calls to forget once no pending home call was placed before this site learned of them, oldest first. */
    private final PriorityQueue<Forgettable> toForget =
            new PriorityQueue<>((a, b) -> Long.compare(a.learned(), b.learned()));

    private final SiteStreams streams = new SiteStreams();

    private long clock;
    private long nextSequence = 1;
    private long placedCount;
    private long agreedCount;
    private long confirmedCount;
    private long collidedCount;
    private long restackCount;

    /** {@code mode}: {@link AgreementMode#OPTIMISTIC} or {@link AgreementMode#PESSIMISTIC}, no other. */
    public LogOrderAgreement(String site, AgreementMode mode) {
        this.site = Objects.requireNonNull(site, "site");
        this.mode = Objects.requireNonNull(mode, "mode");
        if (mode != AgreementMode.OPTIMISTIC && mode != AgreementMode.PESSIMISTIC) {
            throw new IllegalArgumentException(
                    "a log-order agreement is optimistic or pessimistic, not " + mode + " (see Agreements.of)");
        }
        this.agreed = new ConflictIndex();
        this.view = mode == AgreementMode.OPTIMISTIC ? new ConflictIndex() : null;
    }

    public static LogOrderAgreement optimistic(String site) {
        return new LogOrderAgreement(site, AgreementMode.OPTIMISTIC);
    }

    public static LogOrderAgreement pessimistic(String site) {
        return new LogOrderAgreement(site, AgreementMode.PESSIMISTIC);
    }

    @Override
    public String site() {
        return site;
    }

    /**
     * Places home call {@code txn} writing {@code keys}: the entry to append to the schedule log and, when optimistic,
     * the back-dependencies to dispatch it with now ({@link Home.Provisional}); pessimistic, {@link Home.Logged}.
     */
    @Override
    public Home placeHome(long txn, List<WriteKey> keys) {
        if (learned.containsKey(txn) || pending.containsKey(txn)) {
            throw new IllegalArgumentException("transaction " + txn + " is already placed at site " + site);
        }
        ScheduleEntry entry = new ScheduleEntry(site, nextSequence++, txn, keys);
        long[] dependencies = view == null ? null : view.add(txn, keys);
        pending.put(txn, new Pending(entry, ++clock, dependencies));
        placedCount++;
        return dependencies == null ? new Home.Logged(entry) : new Home.Provisional(entry, dependencies);
    }

    /**
     * The schedule log committed {@code entry} (entries come in log order). Returns the calls it placed: none for a
     * copy already read or an entry that came ahead of a missing one from its site; one, or more when it releases
     * entries held back behind it.
     */
    @Override
    public List<Decision> read(ScheduleEntry entry) {
        List<ScheduleEntry> due = streams.accept(entry);
        if (due.isEmpty()) {
            return List.of();
        }
        List<Decision> placed = new ArrayList<>(due.size());
        for (ScheduleEntry next : due) {
            placed.add(place(next));
        }
        forgetWhatIsSafe();
        return placed;
    }

    /**
     * Every replica of every site has made {@code txn} visible: forget it (at once, or once the home calls placed
     * before this site learned of it are back from the log). Unknown ids are ignored.
     */
    @Override
    public void forget(long txn) {
        Long when = learned.get(txn);
        if (when == null) {
            if (pending.containsKey(txn)) {
                throw new IllegalStateException("transaction " + txn + " is not yet back from the schedule log at "
                        + site + ": it cannot be visible everywhere");
            }
            return;
        }
        toForget.add(new Forgettable(txn, when));
        forgetWhatIsSafe();
    }

    /** Whether {@code txn} was read from the log and is not forgotten yet. */
    @Override
    public boolean knows(long txn) {
        return learned.containsKey(txn);
    }

    /** Home calls appended and not yet back from the log. */
    @Override
    public int pending() {
        return pending.size();
    }

    /** Calls in the agreed graph (read from the log, not yet forgotten). */
    public int agreedSize() {
        return agreed.size();
    }

    @Override
    public Counters counters() {
        return new Counters(
                placedCount,
                agreedCount,
                confirmedCount,
                collidedCount,
                restackCount,
                streams.duplicates(),
                streams.heldBack());
    }

    /** The schedule log holds only entries here: a placement is the other agreements'. */
    @Override
    public List<Decision> read(SitePlacement placement) {
        throw new IllegalStateException("site " + site + " does not use site-owned classes, but the schedule log holds "
                + placement.owner() + "'s placement of transaction " + placement.txn());
    }

    /** Nothing here waits for placements. */
    @Override
    public Optional<String> stalled(Duration patience) {
        return Optional.empty();
    }

    private Decision place(ScheduleEntry entry) {
        agreedCount++;
        long[] dependencies = agreed.add(entry.txn(), entry.keys());
        if (!entry.site().equals(site)) {
            learned.put(entry.txn(), ++clock);
            if (view != null) {
                learnInView(entry);
            }
            return new Decision.Remote(entry.txn(), dependencies);
        }
        Pending home = pending.remove(entry.txn());
        if (home == null) {
            // A home entry this scheduler did not place (an earlier scheduler of this site did): it is in the graph as
            // another site's call is; the site scheduler has it settled if no node of the site ran it.
            learned.put(entry.txn(), ++clock);
            if (view != null) {
                learnInView(entry);
            }
            return new Decision.Orphaned(entry.txn(), dependencies);
        }
        learned.put(entry.txn(), home.stamp());
        if (mode == AgreementMode.PESSIMISTIC) {
            return new Decision.Dispatch(entry.txn(), dependencies, Map.of(), false);
        }
        if (containsAll(home.provisionalDependencies(), dependencies)) {
            confirmedCount++;
            return new Decision.Agreed(entry.txn(), dependencies, false);
        }
        collidedCount++;
        return new Decision.Agreed(entry.txn(), dependencies, true);
    }

    /** Another site's call joins the view; pending home calls it now comes before are placed again on top of it. */
    private void learnInView(ScheduleEntry entry) {
        long[] inView = view.add(entry.txn(), entry.keys());
        boolean beforePending = false;
        for (long dependency : inView) {
            if (pending.containsKey(dependency)) {
                beforePending = true;
                break;
            }
        }
        if (!beforePending) {
            return;
        }
        List<Pending> stack = new ArrayList<>(pending.values());
        for (int i = stack.size() - 1; i >= 0; i--) {
            view.remove(stack.get(i).entry().txn());
        }
        for (Pending home : stack) {
            view.add(home.entry().txn(), home.entry().keys()); // dispatched already: its new place only guides bets
        }
        restackCount++;
    }

    private void forgetWhatIsSafe() {
        long oldestPending = pending.isEmpty()
                ? Long.MAX_VALUE
                : pending.values().iterator().next().stamp();
        while (!toForget.isEmpty() && toForget.peek().learned() < oldestPending) {
            long txn = toForget.poll().txn();
            if (learned.remove(txn) != null) {
                agreed.remove(txn);
                if (view != null) {
                    view.remove(txn);
                }
            }
        }
    }

    private static boolean containsAll(long[] set, long[] wanted) {
        outer:
        for (long w : wanted) {
            for (long s : set) {
                if (s == w) {
                    continue outer;
                }
            }
            return false;
        }
        return true;
    }
}
