package org.gargamel.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.common.wire.VisibilityQuery;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.Agreement;
import org.gargamel.scheduler.sites.Decision;
import org.gargamel.scheduler.sites.OwnedAgreement;
import org.gargamel.scheduler.sites.PlacedByOwners;
import org.gargamel.scheduler.sites.SiteScheduler;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler of one site of several (docs/multisite.md): its calls are placed by the {@link SiteScheduler} (the core
 * with the site's agreement) and go to the schedule log ({@link ScheduleLogLink}); what the log decides is told to
 * this site's nodes. Every update call in the agreement (this site's, and the other sites' read from the log) is
 * followed until every node of the site has made it visible; then the agreement forgets it. A successor scheduler
 * reads the log from the start and asks the nodes which calls they made visible; an earlier scheduler's call no node
 * ran (an orphan) is settled through the write-set log, so that no later call waits for it for ever.
 *
 * <p>Single-threaded: owned by the scheduler's event loop; the schedule log's readers hand it entries through it.
 */
final class MultiSite implements SiteCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);
    /** How long an orphan waits for its nodes' answers to the visibility query before it is settled. */
    private static final Duration ORPHAN_GRACE = Duration.ofMillis(500);

    private static final Duration STALL_REPORT = Duration.ofSeconds(5);

    private final SchedulerConfig config;
    private final SiteScheduler site;
    private final Scheduler scheduler;
    private final CallTable calls;
    private final NodeRegistry nodes;
    private final EpochClaim takeOver;
    private final LoopContext loop;
    /** The departed nodes' calls among the orphans: their ABANDON is sent again until they are settled. */
    private final AbandonResends resends;

    private final ScheduleLogLink log;
    private final HeldPlacements placements;
    /** This site's number in its transaction ids. */
    private final int siteNumber;

    /**
     * The update calls in the agreement (this site's, and other sites' read from the log) with the nodes of this site
     * that made each visible, until all of them have; then the agreement forgets the call. Other sites' calls a node
     * reports before this scheduler read them from the log wait in {@link #reportedEarly}.
     */
    private final Map<Long, Set<String>> visibleAt = new java.util.HashMap<>();

    private final Map<Long, Set<String>> reportedEarly = new java.util.HashMap<>();
    /**
     * Calls read from the log before this scheduler's own first entry came back, to ask the nodes about: they may have
     * reported them to an earlier scheduler of the site ({@link #askVisibility}).
     */
    private final Set<Long> visibilityToAsk = new LinkedHashSet<>();
    /** Whether this scheduler's first own entry came back from the log: no later entry was reported elsewhere. */
    private boolean caughtUp;

    /** This site's calls placed by an earlier scheduler of the site, read from the log, to settle, by when read. */
    private final Map<Long, Orphan> orphans = new LinkedHashMap<>();

    /** An orphan: when it was read, and its agreed back-dependencies (settled before it). */
    @SuppressWarnings("ArrayRecordComponent") // read, never written
    private record Orphan(long readAt, long[] dependencies) {}

    /**
     * This site's updates whose node left before they were settled and before the schedule log placed them: they are
     * settled as orphans once it does ({@link #settleAsAnOrphan}).
     */
    private final Set<Long> lostBeforeAgreed = new HashSet<>();

    /**
     * A write-set log per site: the highest position in it this site's nodes reported (0 otherwise, and before the
     * first report).
     */
    private long siteLogPosition;

    /** When {@link #reportStalledPlacements} last logged (0: never). */
    private long stallReported;

    MultiSite(
            SchedulerConfig config,
            SiteScheduler site,
            Scheduler scheduler,
            CallTable calls,
            NodeRegistry nodes,
            EpochClaim takeOver,
            AbandonResends resends,
            LoopContext loop) {
        this.config = config;
        this.resends = resends;
        this.site = site;
        this.scheduler = scheduler;
        this.calls = calls;
        this.nodes = nodes;
        this.takeOver = takeOver;
        this.loop = loop;
        this.log = new ScheduleLogLink(config, loop);
        this.placements = new HeldPlacements(log, takeOver);
        this.siteNumber = config.site().number();
        site.logPositionFrom(() -> siteLogPosition);
        site.epochFrom(takeOver::epoch);
    }

    @Override
    public void start() {
        log.start();
    }

    @Override
    public void close() {
        log.close();
    }

    @Override
    public Optional<Agreement> agreement() {
        return Optional.of(site.agreement());
    }

    @Override
    public Optional<String> scheduleLogMember() {
        return log.member();
    }

    @Override
    public List<String> scheduleLogMembers() {
        return log.members();
    }

    @Override
    public SiteScheduler.HomeCall place(ProcedureCall call, long after) {
        return site.place(call, after);
    }

    /** A local call of site-owned classes is placed for good now: settled after these if its node is lost. */
    @Override
    public PendingCall pending(PendingCall call, SiteScheduler.HomeCall home) {
        Placement placement = home.placement();
        return home.dispatchNow() && !home.provisional() && !placement.readOnly()
                ? call.withAgreed(placement.backDependencies())
                : call;
    }

    @Override
    public void placed(SiteScheduler.HomeCall home) {
        long txn = home.placement().txn();
        if (!home.toLog().isEmpty()) {
            visibleAt.put(txn, new HashSet<>());
            for (Message entry : home.toLog()) {
                log.append(entry); // its entry; abort-free, then this site's placement of it as it came
            }
        } else if (site.knows(txn)) {
            visibleAt.put(txn, new HashSet<>()); // site-owned classes: a local call, forgotten once visible
        }
    }

    /**
     * A site's number in the ids too (with a write-set log per site, two sites may claim the same epoch); then joins
     * the schedule log.
     */
    @Override
    public void activated(EpochGranted grant, long epoch) {
        long first = TransactionIds.firstOf(epoch, siteNumber);
        scheduler.startTransactionIdsAt(first, TransactionIds.lastFrom(first, true));
        log.connect(
                grant,
                epoch,
                entry -> loop.onLoop(entry::describe, () -> onLogged(entry)),
                site.agreement() instanceof PlacedByOwners
                        ? placement -> loop.onLoop(placement::describe, () -> onPlacementLogged(placement))
                        : null);
    }

    @Override
    public void takeOverDone() {
        placements.sendFirst();
        settleOrphans();
    }

    /**
     * A node joined: it may have made visible, before it joined, calls this scheduler counts as not visible everywhere
     * (a node that restarted, or one that reported them to an earlier scheduler of the site). Reports that came while
     * no node was here (a restarted node reports before its hello) marked calls visible without forgetting them
     * ({@link #forgetIfVisibleHere} needs a node): the first node forgets them.
     */
    @Override
    public void hello(String node, Address address, boolean joined) {
        if (joined) {
            long[] unknown = awaitedFrom(node);
            if (unknown.length > 0) {
                loop.send(address, new VisibilityQuery(unknown));
            }
        }
        if (nodes.size() == 1) {
            forgetWhatIsVisibleHere();
        }
    }

    @Override
    public long[] awaitedFrom(String node) {
        return visibleAt.entrySet().stream()
                .filter(call -> !call.getValue().contains(node))
                .mapToLong(Map.Entry::getKey)
                .sorted()
                .toArray();
    }

    /** A log per site: every call this site forgets stood at or before the highest position its nodes reported. */
    @Override
    public void progress(Progress progress) {
        siteLogPosition = Math.max(siteLogPosition, progress.logPosition());
    }

    /**
     * A node of this site made {@code txn} visible. Once every node of the site has, the agreement may forget the call
     * (docs/multisite.md, Forgetting): a later call of this site runs on one of them, and every replica applies the
     * write-sets of conflicting calls in the write-set log's order, row by row.
     */
    @Override
    public void visible(String node, long txn) {
        Set<String> by = visibleAt.get(txn);
        if (by == null) {
            if (handedOutHere(txn) || site.agreement() instanceof OwnedAgreement) {
                // This site's read-only call, or one already forgotten; with site-owned classes also another site's
                // call this site does not order (a call it orders cannot be visible before this site placed it).
                return;
            }
            by = reportedEarly.computeIfAbsent(txn, id -> new HashSet<>()); // not read from the log yet
        }
        by.add(node);
        forgetIfVisibleHere(txn);
    }

    /** The nodes left are fewer: some calls are now visible at all of them. */
    @Override
    public void nodesLeft() {
        forgetWhatIsVisibleHere();
    }

    /**
     * A departed node's unreported updates are in (or on their way to) every site's agreed order, and the calls placed
     * after one may depend on it alone for its agreed back-dependencies (a dependency list names the last writer of
     * each class). Abandoned at once, before those dependencies are in the write-set log, a later call could run
     * before them. So each is settled as an orphan is ({@link #settleOrphans}): once it is agreed and its agreed
     * back-dependencies are in the write-set log. Returns the ones that still go into an ABANDON at once (none in
     * practice: every lost update of this scheduler is in flight here).
     */
    @Override
    public List<Placement> abandonNow(List<Placement> lost) {
        List<Placement> now = new ArrayList<>();
        lost.stream()
                .filter(placement -> !placement.readOnly())
                .sorted(Comparator.comparingLong(Placement::txn))
                .forEach(placement -> {
                    PendingCall call = calls.unsettledCall(placement.txn());
                    if (call == null) {
                        now.add(placement);
                    } else {
                        outcomeUnknown(placement.txn(), call);
                    }
                });
        return now;
    }

    /**
     * In the agreed order of every site: the other sites' later calls wait for it, so it must be settled through the
     * write-set log once a node of this site is back: now if the schedule log placed it, else once it does.
     */
    @Override
    public void outcomeUnknown(long txn, PendingCall call) {
        if (call.agreed() != null) {
            settleAsAnOrphan(txn, call.agreed());
        } else {
            lostBeforeAgreed.add(txn);
        }
    }

    /**
     * The other sites' calls read from the schedule log that some node of this site has not made visible yet. A drain
     * waits for them too, so that a client that waits for every site to drain finds every replica of every site up to
     * date (as far as each site has read the log).
     */
    @Override
    public long notVisibleHere() {
        return visibleAt.keySet().stream().filter(txn -> !handedOutHere(txn)).count();
    }

    @Override
    public void explainBusy() {
        List<String> notVisible = visibleAt.entrySet().stream()
                .filter(call -> !handedOutHere(call.getKey()))
                .limit(DrainReport.BUSY_EXAMPLES)
                .map(call -> call.getKey() + " (visible at " + call.getValue() + ")")
                .toList();
        LOG.info(
                "the agreement: {} home call(s) not yet back from the schedule log, {} other sites' call(s) not yet"
                        + " visible at every node here{}, {} reported before their entry was read; {}",
                site.pending(),
                notVisibleHere(),
                notVisible.isEmpty() ? "" : " " + notVisible,
                reportedEarly.size(),
                site.counters());
    }

    @Override
    public void tick() {
        askVisibility();
        settleOrphans();
        reportStalledPlacements();
    }

    /**
     * An entry the schedule log committed, in log order: tells this site's nodes where their calls were placed (an
     * {@code AGREEMENT} for a provisional call; pessimistic, the {@code EXECUTE}). A call whose node left meanwhile is
     * settled through the write-set log instead (and run again under a new transaction if it had no effect).
     */
    private void onLogged(ScheduleCall entry) {
        loop.about(entry.txn());
        decided(site.read(entry));
    }

    /**
     * What the schedule log's latest entry decided. Placed by owners also: a placement of another site's call to
     * append, and the dispatch of a spanning call of this site behind its barrier.
     */
    private void decided(List<Decision> decisions) {
        for (Decision decision : decisions) {
            loop.about(decision.txn());
            if (decision instanceof Decision.Place place) {
                placements.place(SiteScheduler.toWire(place.placement()));
            } else if (decision instanceof Decision.Remote || decision instanceof Decision.Orphaned) {
                follow(decision);
            } else {
                tellTheNode(decision);
            }
        }
    }

    /** Placed by another site or an earlier scheduler of this one: followed until visible at every node. */
    private void follow(Decision decision) {
        Set<String> early = reportedEarly.remove(decision.txn());
        visibleAt.put(decision.txn(), early == null ? new HashSet<>() : early);
        if (!caughtUp) {
            visibilityToAsk.add(decision.txn());
        }
        if (decision instanceof Decision.Orphaned orphan) {
            orphans.putIfAbsent(orphan.txn(), new Orphan(System.nanoTime(), orphan.dependencies()));
        }
        forgetIfVisibleHere(decision.txn());
    }

    /** One of this scheduler's own calls placed by the log: every later entry was committed while it served. */
    private void tellTheNode(Decision decision) {
        caughtUp = true;
        long[] agreed = decision.dependencies();
        calls.agreed(decision.txn(), agreed);
        if (lostBeforeAgreed.remove(decision.txn())) {
            settleAsAnOrphan(decision.txn(), agreed);
        }
        PendingCall call = calls.pending(decision.txn());
        Address target = call == null ? null : nodes.address(call.node());
        if (target != null && decision instanceof Decision.Agreed placed) {
            loop.send(
                    target,
                    new org.gargamel.common.wire.Agreement(placed.txn(), placed.collided(), placed.dependencies()));
        } else if (target != null && decision instanceof Decision.Dispatch dispatch) {
            loop.send(
                    target,
                    call.execute(
                            call.dispatched(dispatch.dependencies()),
                            false,
                            dispatch.barrier(),
                            dispatch.shippedBefore()));
        }
        forgetIfVisibleHere(decision.txn());
    }

    /**
     * Placed by owners: an owner's placement the log committed. One of this site's by an earlier scheduler of the site
     * (site-owned classes) names that scheduler's calls; those no node of the site ran never will (dropped at the
     * take-over, or held at the scheduler that died), and the placed call would wait for them for ever: each is
     * settled as an orphan is, once the nodes have said which they made visible (docs/multisite.md, Site-owned
     * conflict classes).
     */
    private void onPlacementLogged(SchedulePlacement placement) {
        loop.about(placement.txn());
        placements.read(placement, (PlacedByOwners) site.agreement());
        if (placement.owner().equals(config.site().name()) && site.agreement() instanceof OwnedAgreement owned) {
            for (long named : placement.dependencies()) {
                if (!handedOutHere(named)
                        && !owned.isSpanning(named)
                        && !orphans.containsKey(named)
                        && !visibleAt.containsKey(named)) {
                    // Not another site's call (those are spanning calls read from the log) and not this scheduler's:
                    // an earlier scheduler's call on this site's rows. Forgotten already means visible everywhere here,
                    // which the visibility query will say.
                    visibleAt.put(named, new HashSet<>());
                    visibilityToAsk.add(named);
                    orphans.put(named, new Orphan(System.nanoTime(), new long[0]));
                }
            }
        }
        decided(site.read(placement));
    }

    /**
     * A site scheduler reads the whole schedule log when it starts, and the nodes reported the calls they made visible
     * to the schedulers of the site before it: until its own first entry comes back (every entry after it was
     * committed once it served), it asks the nodes which of the calls it read are visible there (VISIBILITY_QUERY,
     * answered with a PROGRESS). Without it, those calls would never be forgotten and a drain never ended.
     */
    private void askVisibility() {
        if (visibilityToAsk.isEmpty() || !takeOver.done() || nodes.isEmpty()) {
            return;
        }
        long[] asked = visibilityToAsk.stream().mapToLong(Long::longValue).toArray();
        visibilityToAsk.clear();
        for (Address node : nodes.addresses()) {
            loop.send(node, new VisibilityQuery(asked));
        }
    }

    /**
     * Whether {@code txn}'s write-set (or its settlement) is in the write-set log: a node of this site made it visible,
     * or every one did and the agreement forgot it. An orphan is settled only after its agreed back-dependencies are:
     * every node handles the log's entries in order, so they are visible everywhere before the orphan is, and a call
     * placed after the orphan alone still runs after them.
     */
    private boolean inTheWriteSetLog(long txn) {
        Set<String> by = visibleAt.get(txn);
        return by != null ? !by.isEmpty() : !site.knows(txn);
    }

    /**
     * A call of this site whose node left before it was settled, agreed after {@code agreedDependencies}: settled as an
     * orphan is ({@link #settleOrphans}), once this site has a node and those dependencies are in the write-set log, so
     * that the other sites' later calls that conflict with it do not wait for it for ever.
     */
    private void settleAsAnOrphan(long txn, long[] agreedDependencies) {
        visibleAt.putIfAbsent(txn, new HashSet<>());
        orphans.putIfAbsent(txn, new Orphan(System.nanoTime(), agreedDependencies));
    }

    /**
     * A site scheduler's failover (docs/multisite.md): once the take-over is done, the nodes have finished or dropped
     * every call of the earlier epochs (a stalled provisional one was rolled back when the new claim was applied), and
     * the write-sets of those that committed are in the write-set log. So a call of this site that an earlier
     * scheduler placed and the log holds, which no node of the site has said is visible {@link #ORPHAN_GRACE} after it
     * was read (the nodes answer the visibility query meanwhile), goes into an ABANDON once its agreed back-dependencies
     * are in the write-set log ({@link #inTheWriteSetLog}): settled as done with no effect, so that the other sites'
     * calls placed after it do not wait for it for ever, unless the log holds its write-set first (then it stands: a
     * late answer costs nothing but the entry). Its client resubmits it here.
     */
    private void settleOrphans() {
        if (!takeOver.done() || orphans.isEmpty() || nodes.isEmpty()) {
            return;
        }
        List<Long> unrun = new ArrayList<>();
        long now = System.nanoTime();
        for (Iterator<Map.Entry<Long, Orphan>> read = orphans.entrySet().iterator(); read.hasNext(); ) {
            Map.Entry<Long, Orphan> orphan = read.next();
            if (now - orphan.getValue().readAt() < ORPHAN_GRACE.toNanos()) {
                break; // read in order: the ones after it are younger
            }
            Set<String> by = visibleAt.get(orphan.getKey());
            boolean committed = by == null || !by.isEmpty(); // a node has it, or all have (forgotten): it stands
            if (committed && !calls.isUnsettled(orphan.getKey())) {
                read.remove();
                continue;
            }
            // A departed node's call whose client waits here goes into the ABANDON even if it committed: the
            // survivors' SETTLEMENT is what answers the client (it stood, with its outcome).
            if (committed
                    || Arrays.stream(orphan.getValue().dependencies())
                            .allMatch(dependency -> unrun.contains(dependency) || inTheWriteSetLog(dependency))) {
                read.remove();
                unrun.add(orphan.getKey());
            }
        }
        if (unrun.isEmpty()) {
            return;
        }
        Abandon decision = new Abandon(
                "site " + config.site().name() + " (calls no node of it settled)",
                unrun.stream().mapToLong(Long::longValue).toArray());
        LOG.info(
                "asking {} to settle {} call(s) of this site no node settled, an earlier scheduler's or a departed"
                        + " node's (those that committed stand): {}",
                nodes.names(),
                unrun.size(),
                unrun);
        for (Address node : nodes.addresses()) {
            loop.send(node, decision);
        }
        resends.sent(decision); // again until the departed nodes' calls among them are settled
    }

    /**
     * Whether this scheduler handed out {@code txn}: its epoch and its site's number (with a write-set log per site
     * another site's scheduler may have the same epoch).
     */
    private boolean handedOutHere(long txn) {
        return TransactionIds.epochOf(txn) == takeOver.epoch() && TransactionIds.siteOf(txn) == siteNumber;
    }

    /**
     * Placed by owners: every {@link #STALL_REPORT}, names the oldest call of this site that has waited that long for
     * its placements, and what it waits for (an operator's first question when a site stops).
     */
    private void reportStalledPlacements() {
        if (System.nanoTime() - stallReported < STALL_REPORT.toNanos()) {
            return;
        }
        site.agreement().stalled(STALL_REPORT).ifPresent(stall -> {
            stallReported = System.nanoTime();
            LOG.warn("{}", stall);
        });
    }

    private void forgetWhatIsVisibleHere() {
        for (long txn : new ArrayList<>(visibleAt.keySet())) {
            forgetIfVisibleHere(txn);
        }
    }

    private void forgetIfVisibleHere(long txn) {
        Set<String> by = visibleAt.get(txn);
        if (by == null || nodes.isEmpty() || !by.containsAll(nodes.names())) {
            return;
        }
        if (site.knows(txn)) {
            visibleAt.remove(txn);
            site.forget(txn);
        } else if (site.agreement() instanceof PlacedByOwners) {
            visibleAt.remove(txn); // an earlier scheduler's call that one of its placements named, settled
        }
    }
}
