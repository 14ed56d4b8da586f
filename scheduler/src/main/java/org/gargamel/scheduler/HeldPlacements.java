package org.gargamel.scheduler;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.scheduler.sites.PlacedByOwners;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Placed by owners: this site's placements of other sites' calls, held while this scheduler has not read the log as
 * far as it stood when it took over (docs/multisite.md, Site-owned conflict classes). It reads the log from the start,
 * and an earlier scheduler of the site may have placed those calls already: their placements come later in the log,
 * so a placement is decided only once this scheduler's first one comes back. None is appended before the take-over is
 * done either: only then are all of an earlier scheduler's write-sets in the write-set log, which the call's barrier
 * must cover.
 *
 * <p>Single-threaded: owned by the scheduler's event loop.
 */
final class HeldPlacements {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);

    private final ScheduleLogLink log;
    private final EpochClaim takeOver;
    private final List<SchedulePlacement> held = new ArrayList<>();
    /** The placement sent first, to learn when the log is read past the take-over; null before, and once back. */
    private SchedulePlacement first;

    private boolean caughtUp;

    HeldPlacements(ScheduleLogLink log, EpochClaim takeOver) {
        this.log = log;
        this.takeOver = takeOver;
    }

    /** This site placed another site's call: appended, or held until the log is read past the take-over. */
    void place(SchedulePlacement placement) {
        if (caughtUp) {
            log.append(placement);
        } else {
            held.add(placement);
            sendFirst();
        }
    }

    /**
     * Once the take-over is done, sends the first placement held: when it comes back, every entry the log held when it
     * was sent has been read.
     */
    void sendFirst() {
        if (!takeOver.done() || first != null || caughtUp || held.isEmpty()) {
            return;
        }
        first = held.remove(0);
        log.append(first);
    }

    /**
     * A placement the log committed: if it is the first one sent, everything before it is read (the log's placements
     * of this site are known), and the placements held are appended, but those {@code owners} says the log holds one
     * of this site's of already (an earlier scheduler's).
     */
    void read(SchedulePlacement placement, PlacedByOwners owners) {
        if (!placement.equals(first)) {
            return;
        }
        first = null;
        caughtUp = true;
        int appended = 0;
        for (SchedulePlacement waiting : held) {
            if (!owners.placedHere(waiting.txn())) {
                log.append(waiting);
                appended++;
            }
        }
        LOG.info(
                "read the schedule log past the take-over: appended {} placement(s) of other sites' calls held until"
                        + " then ({} already placed by an earlier scheduler of this site)",
                appended,
                held.size() - appended);
        held.clear();
    }
}
