package org.gargamel.scheduler.sites;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.WriteKey;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.wire.ScheduleCall;
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
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public final class SiteScheduler {
    /** What to send for a call: to its node, an {@code EXECUTE} now, or later, and to the schedule log, an entry. */
    public record HomeCall(Placement placement, ScheduleCall entry, boolean dispatchNow, boolean provisional) {}

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

        /** Pessimistic: the call may be dispatched now, placed for good. */
        record Dispatch(Placement placement) implements Decision {
            @Override
            public long txn() {
                return placement.txn();
            }
        }
    }

    private final Scheduler core;
    private final SiteAgreement agreement;
    private final ClassifierRules rules;
    private final Isolation isolation;
    /** Home update calls sent to the log and not yet back, with their core placement. */
    private final Map<Long, Placement> placed = new HashMap<>();

    public SiteScheduler(Scheduler core, SiteAgreement agreement, ClassifierRules rules) {
        if (core.mode() != Mode.GARGAMEL) {
            throw new IllegalArgumentException("multi-site scheduling needs mode gargamel, not " + core.mode());
        }
        if (core.isolation() != Isolation.PSI) {
            throw new IllegalArgumentException("multi-site scheduling needs isolation psi, not " + core.isolation());
        }
        this.core = core;
        this.agreement = Objects.requireNonNull(agreement, "agreement");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.isolation = core.isolation();
    }

    public SiteAgreement agreement() {
        return agreement;
    }

    /**
     * Places a call of this site's client ({@code after}: its session's last write, 0 for none). A read-only call is
     * dispatched now and never enters the schedule. An update call goes to the log; optimistic, it is dispatched now
     * too, provisional; pessimistic, only once the log placed it ({@link #read}).
     *
     * @throws RejectedCallException as {@link Scheduler#place}
     */
    public HomeCall place(ProcedureCall call, long after) {
        Placement local = core.place(call, after);
        if (local.readOnly()) {
            return new HomeCall(local, null, true, false);
        }
        List<WriteKey> keys = rules.conflictKeys(call, isolation);
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
     * An entry the schedule log committed, in log order: a decision for each call it placed (none for an entry held
     * back or read twice; more when it releases entries held back behind it).
     */
    public List<Decision> read(ScheduleCall entry) {
        List<WriteKey> keys = rules.conflictKeys(entry.call(), isolation);
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
                            new Decision.Dispatch(new Placement(local.txn(), local.worker(), dependencies, false));
                        default -> throw new IllegalStateException("unexpected verdict " + call.verdict());
                    });
        }
        return decisions;
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
