package org.gargamel.scheduler;

import java.util.List;
import java.util.Optional;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Progress;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.Agreement;
import org.gargamel.scheduler.sites.Agreements;
import org.gargamel.scheduler.sites.SiteScheduler;
import org.jgroups.Address;

/**
 * The site half of the scheduler (docs/multisite.md): what a scheduler of one site of several does beside placing its
 * calls on its nodes (the schedule log, the other sites' calls, visibility at every node of the site, orphans). A
 * single-site cluster's scheduler has {@link SingleSite}, which does nothing; {@link MultiSite} is one site's.
 *
 * <p>Every method runs on the scheduler's event loop, which owns the coordinator.
 */
interface SiteCoordinator {
    /** The coordinator of a scheduler configured as {@code config}: one site's, or none. */
    static SiteCoordinator of(
            SchedulerConfig config,
            ClassifierRules rules,
            Scheduler scheduler,
            CallTable calls,
            NodeRegistry nodes,
            EpochClaim takeOver,
            AbandonResends resends,
            LoopContext loop) {
        if (config.site() == null) {
            return new SingleSite(scheduler);
        }
        SiteScheduler site = new SiteScheduler(scheduler, Agreements.of(config.site()), rules);
        return new MultiSite(config, site, scheduler, calls, nodes, takeOver, resends, loop);
    }

    /** Starts what runs beside the loop (before the control group is joined). */
    void start();

    /** Stops it. Idempotent. */
    void close();

    /** The agreement this site runs; empty for a single site. */
    Optional<Agreement> agreement();

    /** This scheduler's Raft id in the schedule log, once it joined it; empty before, and for a single site. */
    Optional<String> scheduleLogMember();

    /** The schedule log's members as this scheduler knows them; empty before it joined, and for a single site. */
    List<String> scheduleLogMembers();

    /**
     * Places a client's call ({@code after}: its session's last write): what to send to its node, now or later, and to
     * the schedule log.
     *
     * @throws RejectedCallException as {@code Scheduler.place}
     */
    SiteScheduler.HomeCall place(ProcedureCall call, long after);

    /** {@code call} as it is kept in flight once placed as {@code home} (a site keeps what the log agreed). */
    PendingCall pending(PendingCall call, SiteScheduler.HomeCall home);

    /** {@code home} was placed and, if it was to be, sent to its node: what it needs of the schedule log. */
    void placed(SiteScheduler.HomeCall home);

    /** The write-set log made this scheduler active at {@code epoch}: its transaction ids start there. */
    void activated(EpochGranted grant, long epoch);

    /** The take-over is done: every node that applied the claim and is still here has said hello. */
    void takeOverDone();

    /** {@code node} said hello from {@code address} ({@code joined}: it was not counted before). */
    void hello(String node, Address address, boolean joined);

    /** A node's report, before its calls' visibility is noted one by one ({@link #visible}). */
    void progress(Progress progress);

    /** {@code node} made {@code txn} visible. */
    void visible(String node, long txn);

    /** The calls the site's agreement waits to hear are visible at {@code node}, beside the scheduler's own. */
    long[] awaitedFrom(String node);

    /** Nodes left the view (and the registry). */
    void nodesLeft();

    /** Of a departed node's unreported calls, those to abandon at once (the others are settled as the log agrees). */
    List<Placement> abandonNow(List<Placement> lost);

    /** Every node left before {@code txn} was settled: its outcome is unknown to its client. */
    void outcomeUnknown(long txn, PendingCall call);

    /** Work of the site's that a drain waits for beside the calls in flight. */
    long notVisibleHere();

    /** Says, in the busy log line's wake, what the site's agreement waits for. */
    void explainBusy();

    /** Periodic work of the loop (every event batch, and every idle poll). */
    void tick();
}
