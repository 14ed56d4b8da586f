package org.gargamel.scheduler.sites;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.WriteKey;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;

/**
 * One site's scheduling (docs/multisite.md): the core {@link Scheduler} for the site's own nodes (transaction ids,
 * chains, the choice of worker, a session's last write, garbage collection of the site's calls) together with the
 * site's {@link SiteAgreement} on the schedule log (where other sites' calls come in).
 *
 * <p>A home update call waits at its node for the union of both: the core's back-dependencies (the site's own
 * conflicting calls before it, all before it in the log too, since a site's entries are read in the order it placed
 * them; and its session's last write) and the agreement's (provisional, then agreed). Every one of them is a call the
 * log holds before it, or one already committed, so no wait can be circular.
 *
 * <p>With site-owned conflict classes ({@link OwnedAgreement}) a call on the site's own rows is placed by the core and
 * the site's order alone and dispatched at once, for good; a call that may write another site's rows is placed outside
 * the core's conflict index, goes to the log, and is dispatched, behind a barrier, once every owner placed it. A call
 * that depends on a home call not dispatched yet is held here until it is, so that no node's worker queues a call ahead
 * of one it waits for.
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class SiteScheduler {
    /**
     * What to send for a call: to its node, an {@code EXECUTE} now, or later, and to the schedule log, an entry (and
     * with the abort-free agreement, right after it, this site's own placement of the call: {@code ownPlacement}).
     */
    public record HomeCall(
            Placement placement,
            ScheduleCall entry,
            boolean dispatchNow,
            boolean provisional,
            SchedulePlacement ownPlacement) {
        public HomeCall(Placement placement, ScheduleCall entry, boolean dispatchNow, boolean provisional) {
            this(placement, entry, dispatchNow, provisional, null);
        }
    }

    /** What to tell a node once the log placed one of this site's calls. */
    public sealed interface Decision {
        long txn();

        /** Optimistic: where the log put a provisional call (an {@code AGREEMENT}). */
        // ArrayRecordComponent: the array goes out in a message as is, never written.
        @SuppressWarnings("ArrayRecordComponent")
        record Agreement(Placement placement, boolean collided, long[] dependencies) implements Decision {
            @Override
            public long txn() {
                return placement.txn();
            }
        }

        /** Another site's call, placed here too: nothing to tell a node; its visibility here is followed. */
        record Remote(long txn) implements Decision {}

        /**
         * A call of this site that an earlier scheduler of the site placed (docs/multisite.md, A site scheduler's
         * failover): nothing to tell a node, but it must be settled if no node ran it, once its agreed
         * {@code dependencies} are.
         */
        // ArrayRecordComponent: the array is read, never written.
        @SuppressWarnings("ArrayRecordComponent")
        record Orphaned(long txn, long[] dependencies) implements Decision {}

        /**
         * Pessimistic, or a spanning call of site-owned classes: the call may be dispatched now, placed for good;
         * {@code barrier}: behind a barrier ({@link OwnedAgreement}), which waits for what other sites shipped as far as
         * {@code shippedBefore} says (site to log position; a write-set log per site).
         */
        record Dispatch(Placement placement, boolean barrier, Map<String, Long> shippedBefore) implements Decision {
            public Dispatch(Placement placement, boolean barrier) {
                this(placement, barrier, Map.of());
            }

            @Override
            public long txn() {
                return placement.txn();
            }
        }

        /** Site-owned classes: this site placed another site's spanning call; append {@code placement} to the log. */
        record Place(SchedulePlacement placement) implements Decision {
            @Override
            public long txn() {
                return placement.txn();
            }
        }
    }

    private final Scheduler core;
    /** Optimistic or pessimistic agreement on every update call; null with site-owned classes. */
    private final SiteAgreement agreement;
    /** Site-owned conflict classes; null otherwise. */
    private final OwnedAgreement owned;

    private final ClassifierRules rules;
    /** Whose granularity the keys this site computes itself take: the core's ({@code Scheduler.keysAs}). */
    private final Isolation keysAs;
    /** Home update calls sent to the log and not yet back, with their core placement. */
    private final Map<Long, Placement> placed = new HashMap<>();

    /**
     * Site-owned classes: home calls placed and not yet dispatched: spanning calls waiting for their owners, and calls
     * held behind one of them. A node's worker runs its queue in order, so a call must never reach it before a call it
     * waits for: a call that depends on an undispatched one is held here until that one is dispatched.
     */
    private final Set<Long> notDispatched = new HashSet<>();
    /** The held calls, in the order they were placed, with the placement to dispatch them with. */
    private final Map<Long, Placement> held = new LinkedHashMap<>();
    /** Spanning calls (dispatched behind a barrier) among {@link #held}, with what their barrier waits for. */
    private final Map<Long, Map<String, Long>> heldSpanning = new HashMap<>();
    /** Abort-free calls among {@link #held}: placed by every site, dispatched without a barrier. */
    private final Set<Long> heldWithoutBarrier = new HashSet<>();

    /**
     * How far this site's nodes have come in its write-set log (a log per site: the highest position they reported;
     * else 0), given with each placement of another site's call ({@link SchedulePlacement#logPosition}).
     */
    private java.util.function.LongSupplier logPosition = () -> 0;

    /**
     * This scheduler's epoch, stamped on its placements: a reader tells one scheduler's appends from another's (the
     * abort-free agreement holds a placement back behind its scheduler's entries), and a successor's placement from
     * an equal one of its predecessor's.
     */
    private java.util.function.LongSupplier epoch = () -> 0;

    public void epochFrom(java.util.function.LongSupplier epoch) {
        this.epoch = Objects.requireNonNull(epoch, "epoch");
    }

    private SchedulePlacement toWire(OwnedAgreement.Placement own) {
        return new SchedulePlacement(
                own.owner(), own.txn(), own.dependencies(), 0, epoch.getAsLong(), own.entriesBefore());
    }

    /** Where this site's nodes' log position comes from (a write-set log per site; docs/multisite.md). */
    public void logPositionFrom(java.util.function.LongSupplier position) {
        this.logPosition = Objects.requireNonNull(position, "position");
    }

    public SiteScheduler(Scheduler core, SiteAgreement agreement, ClassifierRules rules) {
        this(core, Objects.requireNonNull(agreement, "agreement"), null, rules);
    }

    /** A site scheduler with site-owned conflict classes (docs/multisite.md). */
    public SiteScheduler(Scheduler core, OwnedAgreement owned, ClassifierRules rules) {
        this(core, null, Objects.requireNonNull(owned, "owned"), rules);
    }

    private SiteScheduler(Scheduler core, SiteAgreement agreement, OwnedAgreement owned, ClassifierRules rules) {
        if (core.mode() != Mode.GARGAMEL) {
            throw new IllegalArgumentException("multi-site scheduling needs mode gargamel, not " + core.mode());
        }
        if (core.isolation() != Isolation.PSI) {
            throw new IllegalArgumentException("multi-site scheduling needs isolation psi, not " + core.isolation());
        }
        this.core = core;
        this.agreement = agreement;
        this.owned = owned;
        this.rules = Objects.requireNonNull(rules, "rules");
        if (owned != null) {
            core.conflictsByRow(); // see Scheduler.conflictsByRow: a node may commit only after its site's log
        }
        this.keysAs = core.keysAs();
    }

    /** The optimistic or pessimistic agreement; empty with site-owned classes. */
    public java.util.Optional<SiteAgreement> agreement() {
        return java.util.Optional.ofNullable(agreement);
    }

    /** The site-owned classes' agreement; empty otherwise. */
    public java.util.Optional<OwnedAgreement> owned() {
        return java.util.Optional.ofNullable(owned);
    }

    public String siteName() {
        return owned != null ? owned.site() : agreement.site();
    }

    /** Whether {@code txn} is in this site's order (read from the log, or with owned classes placed here) and kept. */
    public boolean knows(long txn) {
        return owned != null ? owned.knows(txn) : agreement.knows(txn);
    }

    /** Every node of this site made {@code txn} visible (see {@link SiteAgreement#forget}, {@link OwnedAgreement#forget}). */
    public void forget(long txn) {
        if (owned != null) {
            owned.forget(txn);
        } else {
            agreement.forget(txn);
        }
    }

    /** This site's update calls not yet placed for good by the log. */
    public int pending() {
        return owned != null ? owned.pending() : agreement.pending();
    }

    /** The counters of whichever agreement this site runs, for its log lines. */
    public Object counters() {
        return owned != null ? owned.counters() : agreement.counters();
    }

    /**
     * Places a call of this site's client ({@code after}: its session's last write, 0 for none). A read-only call is
     * dispatched now and never enters the schedule. An update call goes to the log; optimistic, it is dispatched now
     * too, provisional; pessimistic, only once the log placed it ({@link #read}).
     *
     * @throws RejectedCallException as {@link Scheduler#place}
     */
    public HomeCall place(ProcedureCall call, long after) {
        if (owned != null) {
            return placeOwned(call, after);
        }
        Placement local = core.place(call, after);
        if (local.readOnly()) {
            return new HomeCall(local, null, true, false);
        }
        List<WriteKey> keys = rules.conflictKeys(call, keysAs);
        SiteAgreement.Placed home = agreement.placeHome(local.txn(), keys);
        ScheduleCall entry = new ScheduleCall(agreement.site(), home.entry().sequence(), local.txn(), call);
        placed.put(local.txn(), local);
        if (!home.dispatchNow()) {
            return new HomeCall(local, entry, false, false);
        }
        Placement provisional =
                new Placement(local.txn(), local.worker(), union(local.backDependencies(), home.dependencies()), false);
        return new HomeCall(provisional, entry, true, true);
    }

    /**
     * Site-owned classes: a call on this site's rows alone is placed here and dispatched now, for good; one that may
     * write another site's rows goes to the log, outside the core's conflict index (its owners order it when they read
     * it there), and is dispatched once every owner placed it.
     */
    private HomeCall placeOwned(ProcedureCall call, long after) {
        List<WriteKey> keys;
        try {
            keys = rules.conflictKeys(call, keysAs);
        } catch (RulesException | IllegalArgumentException e) {
            throw new RejectedCallException(e.getMessage(), e);
        }
        Set<String> owners = owned.ownersOf(keys);
        boolean local = !owned.isAbortFree() && (owners.isEmpty() || owners.equals(Set.of(owned.site())));
        Placement core = local ? this.core.place(call, after) : this.core.placeOutsideTheConflictIndex(call, after);
        if (core.readOnly()) {
            return new HomeCall(core, null, !holdIfBehindUndispatched(core, null), false);
        }
        OwnedAgreement.Home home = owned.placeHome(core.txn(), keys);
        if (home instanceof OwnedAgreement.Home.Local placedHere) {
            Placement placement = new Placement(
                    core.txn(), core.worker(), union(core.backDependencies(), placedHere.dependencies()), false);
            return new HomeCall(placement, null, !holdIfBehindUndispatched(placement, null), false);
        }
        OwnedAgreement.Home.Spanning spanning = (OwnedAgreement.Home.Spanning) home;
        ScheduleEntry entry = spanning.entry();
        placed.put(core.txn(), core);
        notDispatched.add(core.txn());
        OwnedAgreement.Placement own = spanning.own();
        return new HomeCall(
                core,
                new ScheduleCall(owned.site(), entry.sequence(), core.txn(), call),
                false,
                false,
                own == null ? null : toWire(own));
    }

    /**
     * Holds {@code placement} if it depends on a home call not dispatched yet; whether it did. {@code shippedBefore}:
     * a spanning call's barrier (null: not a spanning call).
     */
    private boolean holdIfBehindUndispatched(Placement placement, Map<String, Long> shippedBefore) {
        for (long dependency : placement.backDependencies()) {
            if (notDispatched.contains(dependency)) {
                notDispatched.add(placement.txn());
                held.put(placement.txn(), placement);
                if (shippedBefore != null) {
                    heldSpanning.put(placement.txn(), shippedBefore);
                }
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
            for (java.util.Iterator<Placement> waiting = held.values().iterator(); waiting.hasNext(); ) {
                Placement placement = waiting.next();
                boolean ready =
                        java.util.Arrays.stream(placement.backDependencies()).noneMatch(notDispatched::contains);
                if (ready) {
                    waiting.remove();
                    notDispatched.remove(placement.txn());
                    Map<String, Long> shippedBefore = heldSpanning.remove(placement.txn());
                    boolean barrier = shippedBefore != null && !heldWithoutBarrier.remove(placement.txn());
                    out.add(new Decision.Dispatch(
                            placement, barrier, shippedBefore == null ? Map.of() : shippedBefore));
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
        if (owned != null) {
            return ownedDecisions(owned.read(new ScheduleEntry(entry.site(), entry.sequence(), entry.txn(), keys)));
        }
        List<Agreed> agreed = agreement.read(new ScheduleEntry(entry.site(), entry.sequence(), entry.txn(), keys));
        List<Decision> decisions = new ArrayList<>(1);
        for (Agreed call : agreed) {
            if (call.verdict() == Agreed.Verdict.REMOTE) {
                decisions.add(new Decision.Remote(call.txn()));
                continue;
            }
            if (call.verdict() == Agreed.Verdict.ORPHANED) {
                decisions.add(new Decision.Orphaned(call.txn(), call.dependencies()));
                continue;
            }
            Placement local = placed.remove(call.txn());
            if (local == null) {
                throw new IllegalStateException("transaction " + call.txn() + " came back from the log as this "
                        + "scheduler's, but it has no placement of it");
            }
            long[] dependencies = union(local.backDependencies(), call.dependencies());
            decisions.add(
                    switch (call.verdict()) {
                        case CONFIRMED -> new Decision.Agreement(local, false, dependencies);
                        case COLLIDED -> new Decision.Agreement(local, true, dependencies);
                        case DISPATCH ->
                            new Decision.Dispatch(
                                    new Placement(local.txn(), local.worker(), dependencies, false), false);
                        default -> throw new IllegalStateException("unexpected verdict " + call.verdict());
                    });
        }
        return decisions;
    }

    /** Site-owned classes: an owner's placement the log committed, in log order. */
    public List<Decision> read(SchedulePlacement placement) {
        if (owned == null) {
            throw new IllegalStateException("site " + agreement.site() + " does not use site-owned classes, but the"
                    + " schedule log holds " + placement.describe());
        }
        return ownedDecisions(owned.read(new OwnedAgreement.Placement(
                placement.owner(),
                placement.txn(),
                placement.dependencies(),
                placement.logPosition(),
                placement.epoch(),
                placement.entriesBefore())));
    }

    private List<Decision> ownedDecisions(List<OwnedAgreement.Decision> decisions) {
        List<Decision> out = new ArrayList<>(decisions.size() + 1);
        for (OwnedAgreement.Decision decision : decisions) {
            if (decision instanceof OwnedAgreement.Decision.Place place) {
                OwnedAgreement.Placement placement = place.placement();
                out.add(new Decision.Place(new SchedulePlacement(
                        placement.owner(),
                        placement.txn(),
                        placement.dependencies(),
                        logPosition.getAsLong(),
                        epoch.getAsLong(),
                        placement.entriesBefore())));
                out.add(new Decision.Remote(placement.txn())); // followed until every node here has it
            } else if (decision instanceof OwnedAgreement.Decision.Dispatch dispatch) {
                Placement local = placed.remove(dispatch.txn());
                if (local == null) {
                    throw new IllegalStateException("transaction " + dispatch.txn() + " came back from the log as this"
                            + " scheduler's, but it has no placement of it");
                }
                long[] dependencies = union(local.backDependencies(), dispatch.dependencies());
                Placement placement = new Placement(local.txn(), local.worker(), dependencies, false);
                notDispatched.remove(placement.txn());
                if (!holdIfBehindUndispatched(placement, dispatch.shippedBefore())) {
                    out.add(new Decision.Dispatch(placement, dispatch.barrier(), dispatch.shippedBefore()));
                    dispatched(placement.txn(), out);
                } else if (!dispatch.barrier()) {
                    heldWithoutBarrier.add(placement.txn());
                }
            } else {
                OwnedAgreement.Decision.Orphaned orphan = (OwnedAgreement.Decision.Orphaned) decision;
                out.add(new Decision.Orphaned(orphan.txn(), orphan.dependencies()));
            }
        }
        return out;
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
