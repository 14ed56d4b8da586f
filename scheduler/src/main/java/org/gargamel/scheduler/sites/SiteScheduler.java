package org.gargamel.scheduler.sites;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.WriteKey;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;

/**
 * One site's scheduling (docs/multisite.md): the core {@link Scheduler} for the site's own nodes (transaction ids,
 * chains, the choice of worker, a session's last write, garbage collection of the site's calls) together with the
 * site's {@link Agreement} on the schedule log (where other sites' calls come in).
 *
 * <p>A home update call waits at its node for the union of both: the core's back-dependencies (the site's own
 * conflicting calls before it, all before it in the log too, since a site's entries are read in the order it placed
 * them; and its session's last write) and the agreement's (provisional, then agreed). Every one of them is a call the
 * log holds before it, or one already committed, so no wait can be circular.
 *
 * <p>With an agreement {@link PlacedByOwners} a call on the site's own rows is placed by the core and the site's order
 * alone and dispatched at once, for good; a call that may write another site's rows is placed outside the core's
 * conflict index, goes to the log, and is dispatched once every owner placed it. A call that depends on a home call
 * not dispatched yet is held here until it is, so that no node's worker queues a call ahead of one it waits for.
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class SiteScheduler {
    /**
     * What to send for a call: to its node, an {@code EXECUTE} now ({@code dispatchNow}; {@code provisional}: it
     * commits only on its {@code AGREEMENT}) or later, and to the schedule log, {@code toLog} in order (its entry and,
     * abort-free, this site's own placement of it; nothing for a call the log does not order).
     */
    public record HomeCall(Placement placement, boolean dispatchNow, boolean provisional, List<Message> toLog) {
        /** The call's entry in the schedule log (tests). */
        public ScheduleCall entry() {
            return (ScheduleCall) toLog.get(0);
        }
    }

    private final Scheduler core;
    private final Agreement agreement;

    private final ClassifierRules rules;
    /** Whose granularity the keys this site computes itself take: the core's ({@code Scheduler.keysAs}). */
    private final Isolation keysAs;
    /** Home update calls sent to the log and not yet back, with their core placement. */
    private final Map<Long, Placement> placed = new HashMap<>();

    /**
     * Placed by owners: home calls placed and not yet dispatched: spanning calls waiting for their owners, and calls
     * held behind one of them. A node's worker runs its queue in order, so a call must never reach it before a call it
     * waits for: a call that depends on an undispatched one is held here until that one is dispatched.
     */
    private final Set<Long> notDispatched = new HashSet<>();
    /** The held calls, in the order they were placed, with the dispatch they get once released. */
    private final Map<Long, Decision.Dispatch> held = new LinkedHashMap<>();

    /**
     * How far this site's nodes have come in its write-set log (a log per site: the highest position they reported;
     * else 0), given with each placement of another site's call ({@link SchedulePlacement#logPosition}).
     */
    private LongSupplier logPosition = () -> 0;

    /**
     * This scheduler's epoch, stamped on its placements: a reader tells one scheduler's appends from another's (the
     * abort-free agreement holds a placement back behind its scheduler's entries), and a successor's placement from
     * an equal one of its predecessor's.
     */
    private LongSupplier epoch = () -> 0;

    public SiteScheduler(Scheduler core, Agreement agreement, ClassifierRules rules) {
        if (core.mode() != Mode.GARGAMEL) {
            throw new IllegalArgumentException("multi-site scheduling needs mode gargamel, not " + core.mode());
        }
        if (core.isolation() != Isolation.PSI) {
            throw new IllegalArgumentException("multi-site scheduling needs isolation psi, not " + core.isolation());
        }
        this.core = core;
        this.agreement = Objects.requireNonNull(agreement, "agreement");
        this.rules = Objects.requireNonNull(rules, "rules");
        if (agreement instanceof PlacedByOwners) {
            core.conflictsByRow(); // see Scheduler.conflictsByRow: a node may commit only after its site's log
        }
        this.keysAs = core.keysAs();
    }

    public void epochFrom(LongSupplier epoch) {
        this.epoch = Objects.requireNonNull(epoch, "epoch");
    }

    /** Where this site's nodes' log position comes from (a write-set log per site; docs/multisite.md). */
    public void logPositionFrom(LongSupplier position) {
        this.logPosition = Objects.requireNonNull(position, "position");
    }

    /** The agreement this site runs. */
    public Agreement agreement() {
        return agreement;
    }

    public String siteName() {
        return agreement.site();
    }

    /** Whether {@code txn} is in this site's order (read from the log, or placed here) and kept. */
    public boolean knows(long txn) {
        return agreement.knows(txn);
    }

    /** Every node of this site made {@code txn} visible (see {@link Agreement#forget}). */
    public void forget(long txn) {
        agreement.forget(txn);
    }

    /** This site's update calls not yet placed for good by the log. */
    public int pending() {
        return agreement.pending();
    }

    /** The counters of the agreement this site runs, for its log lines. */
    public Agreement.Counters counters() {
        return agreement.counters();
    }

    /**
     * Places a call of this site's client ({@code after}: its session's last write, 0 for none). A read-only call is
     * dispatched now and never enters the schedule. An update call goes to the log; optimistic, it is dispatched now
     * too, provisional; pessimistic, only once the log placed it ({@link #read}).
     *
     * @throws RejectedCallException as {@link Scheduler#place}
     */
    public HomeCall place(ProcedureCall call, long after) {
        if (agreement instanceof PlacedByOwners owners) {
            return placeByOwners(owners, call, after);
        }
        Placement local = core.place(call, after);
        if (local.readOnly()) {
            return new HomeCall(local, true, false, List.of());
        }
        List<WriteKey> keys = rules.conflictKeys(call, keysAs);
        Home home = agreement.placeHome(local.txn(), keys);
        placed.put(local.txn(), local);
        if (home instanceof Home.Provisional provisional) {
            ScheduleCall entry = toWire(provisional.entry(), call);
            Placement dispatched = new Placement(
                    local.txn(), local.worker(), union(local.backDependencies(), provisional.dependencies()), false);
            return new HomeCall(dispatched, true, true, List.of(entry));
        }
        return new HomeCall(local, false, false, List.of(toWire(((Home.Logged) home).entry(), call)));
    }

    /**
     * A call on this site's rows alone is placed here and dispatched now, for good; one that may write another site's
     * rows goes to the log, outside the core's conflict index (its owners order it when they read it there), and is
     * dispatched once every owner placed it.
     */
    private HomeCall placeByOwners(PlacedByOwners owners, ProcedureCall call, long after) {
        List<WriteKey> keys;
        try {
            keys = rules.conflictKeys(call, keysAs);
        } catch (RulesException | IllegalArgumentException e) {
            throw new RejectedCallException(e.getMessage(), e);
        }
        boolean local = owners.local(owners.ownersOf(keys));
        Placement core = local ? this.core.place(call, after) : this.core.placeOutsideTheConflictIndex(call, after);
        if (core.readOnly()) {
            return new HomeCall(core, !holdIfBehindUndispatched(core, Map.of(), false), false, List.of());
        }
        Home home = agreement.placeHome(core.txn(), keys);
        if (home instanceof Home.Local placedHere) {
            Placement placement = new Placement(
                    core.txn(), core.worker(), union(core.backDependencies(), placedHere.dependencies()), false);
            return new HomeCall(placement, !holdIfBehindUndispatched(placement, Map.of(), false), false, List.of());
        }
        placed.put(core.txn(), core);
        notDispatched.add(core.txn());
        if (home instanceof Home.Announced announced) {
            return new HomeCall(
                    core,
                    false,
                    false,
                    List.of(toWire(announced.entry(), call), toWire(announced.own(), 0, epoch.getAsLong())));
        }
        return new HomeCall(core, false, false, List.of(toWire(((Home.Spanning) home).entry(), call)));
    }

    /** Holds {@code placement} if it depends on a home call not dispatched yet; whether it did. */
    private boolean holdIfBehindUndispatched(Placement placement, Map<String, Long> shippedBefore, boolean barrier) {
        for (long dependency : placement.backDependencies()) {
            if (notDispatched.contains(dependency)) {
                notDispatched.add(placement.txn());
                held.put(
                        placement.txn(),
                        new Decision.Dispatch(placement.txn(), placement.backDependencies(), shippedBefore, barrier));
                return true;
            }
        }
        return false;
    }

    /** {@code txn} was dispatched: the held calls that waited only for it (and for each other) go too, in order. */
    private void dispatched(long txn, List<Decision> out) {
        notDispatched.remove(txn);
        boolean released = true;
        while (released) {
            released = false;
            for (Iterator<Decision.Dispatch> waiting = held.values().iterator(); waiting.hasNext(); ) {
                Decision.Dispatch dispatch = waiting.next();
                if (Arrays.stream(dispatch.dependencies()).noneMatch(notDispatched::contains)) {
                    waiting.remove();
                    notDispatched.remove(dispatch.txn());
                    out.add(dispatch);
                    released = true;
                }
            }
        }
    }

    /**
     * An entry the schedule log committed, in log order: a decision for each call it placed (none for an entry held
     * back or read twice; more when it releases entries held back behind it).
     */
    public List<Decision> read(ScheduleCall entry) {
        List<WriteKey> keys = rules.conflictKeys(entry.call(), keysAs);
        return joined(agreement.read(new ScheduleEntry(entry.site(), entry.sequence(), entry.txn(), keys)));
    }

    /** An owner's placement the log committed, in log order. */
    public List<Decision> read(SchedulePlacement placement) {
        return joined(agreement.read(new SitePlacement(
                placement.owner(),
                placement.txn(),
                placement.dependencies(),
                placement.logPosition(),
                placement.epoch(),
                placement.entriesBefore())));
    }

    /**
     * The agreement's decisions joined to this site's order: a home call's dependencies are the union of its core
     * placement's and the agreed ones; a placement goes out with this site's log position and epoch, and the call it
     * places is followed until every node here has it; a dispatch waits behind an undispatched home call.
     */
    private List<Decision> joined(List<Decision> decisions) {
        List<Decision> out = new ArrayList<>(decisions.size() + 1);
        for (Decision decision : decisions) {
            if (decision instanceof Decision.Place place) {
                SitePlacement placement = place.placement();
                out.add(new Decision.Place(new SitePlacement(
                        placement.owner(),
                        placement.txn(),
                        placement.dependencies(),
                        logPosition.getAsLong(),
                        epoch.getAsLong(),
                        placement.entriesBefore())));
                out.add(new Decision.Remote(placement.txn(), placement.dependencies()));
            } else if (decision instanceof Decision.Agreed agreed) {
                long[] dependencies = union(ownPlacement(agreed.txn()).backDependencies(), agreed.dependencies());
                out.add(new Decision.Agreed(agreed.txn(), dependencies, agreed.collided()));
            } else if (decision instanceof Decision.Dispatch dispatch) {
                dispatch(dispatch, out);
            } else {
                out.add(decision); // Remote, Orphaned: as the agreement gave them
            }
        }
        return out;
    }

    /** A home call placed for good: dispatched now, unless it waits behind an undispatched one (placed by owners). */
    private void dispatch(Decision.Dispatch dispatch, List<Decision> out) {
        Placement local = ownPlacement(dispatch.txn());
        long[] dependencies = union(local.backDependencies(), dispatch.dependencies());
        Placement placement = new Placement(local.txn(), local.worker(), dependencies, false);
        notDispatched.remove(placement.txn());
        if (!holdIfBehindUndispatched(placement, dispatch.shippedBefore(), dispatch.barrier())) {
            out.add(new Decision.Dispatch(placement.txn(), dependencies, dispatch.shippedBefore(), dispatch.barrier()));
            dispatched(placement.txn(), out);
        }
    }

    private Placement ownPlacement(long txn) {
        Placement local = placed.remove(txn);
        if (local == null) {
            throw new IllegalStateException("transaction " + txn + " came back from the log as this scheduler's, but"
                    + " it has no placement of it");
        }
        return local;
    }

    /** This site's placement as it goes to the log, with this site's log position and this scheduler's epoch. */
    public static SchedulePlacement toWire(SitePlacement placement) {
        return toWire(placement, placement.logPosition(), placement.epoch());
    }

    private static SchedulePlacement toWire(SitePlacement placement, long logPosition, long epoch) {
        return new SchedulePlacement(
                placement.owner(),
                placement.txn(),
                placement.dependencies(),
                logPosition,
                epoch,
                placement.entriesBefore());
    }

    private ScheduleCall toWire(ScheduleEntry entry, ProcedureCall call) {
        return new ScheduleCall(agreement.site(), entry.sequence(), entry.txn(), call);
    }

    private static long[] union(long[] a, long[] b) {
        TreeSet<Long> all = new TreeSet<>();
        for (long id : a) {
            all.add(id);
        }
        for (long id : b) {
            all.add(id);
        }
        return all.stream().mapToLong(Long::longValue).toArray();
    }
}
