package org.gargamel.scheduler;

import java.util.List;
import java.util.Optional;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.scheduler.core.Placement;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.Agreement;
import org.gargamel.scheduler.sites.SiteScheduler;
import org.jgroups.Address;

/**
 * The scheduler of a single-site cluster: calls are placed by the core alone and sent at once; there is no schedule
 * log and nothing of another site to follow, so every other step does nothing.
 *
 * <p>Owned by the scheduler's event loop.
 */
final class SingleSite implements SiteCoordinator {
    private final Scheduler scheduler;

    SingleSite(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public void start() {}

    @Override
    public void close() {}

    @Override
    public Optional<Agreement> agreement() {
        return Optional.empty();
    }

    @Override
    public Optional<String> scheduleLogMember() {
        return Optional.empty();
    }

    @Override
    public List<String> scheduleLogMembers() {
        return List.of();
    }

    @Override
    public SiteScheduler.HomeCall place(ProcedureCall call, long after) {
        return new SiteScheduler.HomeCall(scheduler.place(call, after), true, false, List.of());
    }

    @Override
    public PendingCall pending(PendingCall call, SiteScheduler.HomeCall home) {
        return call;
    }

    @Override
    public void placed(SiteScheduler.HomeCall home) {}

    @Override
    public void activated(EpochGranted grant, long epoch) {
        scheduler.startTransactionIdsAt(TransactionIds.firstOf(epoch));
    }

    @Override
    public void takeOverDone() {}

    @Override
    public void hello(String node, Address address, boolean joined) {}

    @Override
    public void progress(Progress progress) {}

    @Override
    public void visible(String node, long txn) {}

    @Override
    public long[] awaitedFrom(String node) {
        return new long[0];
    }

    @Override
    public void nodesLeft() {}

    @Override
    public List<Placement> abandonNow(List<Placement> lost) {
        return lost;
    }

    @Override
    public void outcomeUnknown(long txn, PendingCall call) {}

    @Override
    public long notVisibleHere() {
        return 0;
    }

    @Override
    public void explainBusy() {}

    @Override
    public void tick() {}
}
