package org.gargamel.scheduler.sites;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.gargamel.classifier.WriteKey;

/**
 * How a site agrees with the others, through the schedule log, on the order of their update calls (docs/multisite.md):
 * one class per agreement, made from the site settings in one place ({@link Agreements#of}). Not the wire message
 * {@link org.gargamel.common.wire.Agreement}, which tells a node where the log put one provisional call.
 *
 * <ul>
 *   <li>{@link LogOrderAgreement}: optimistic or pessimistic; the log's order is the agreed order.
 *   <li>{@link OwnedAgreement}: site-owned conflict classes; a call is ordered by the sites that own its rows.
 *   <li>{@link AbortFreeAgreement}: every site places every call; dependency cycles ordered deterministically.
 * </ul>
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
public sealed interface Agreement permits LogOrderAgreement, PlacedByOwners {
    /** What an agreement counted so far (its site's log lines, result.json's {@code agreement}). */
    sealed interface Counters permits LogOrderAgreement.Counters, OwnedAgreement.Counters {}

    String site();

    /** Places home update call {@code txn} writing {@code keys}: what to append to the log, and when it may run. */
    Home placeHome(long txn, List<WriteKey> keys);

    /**
     * The schedule log committed {@code entry} (entries come in log order): what this site must do for it, and for
     * entries of its stream it releases; nothing for a copy already read.
     */
    List<Decision> read(ScheduleEntry entry);

    /** The schedule log committed an owner's {@code placement} (in log order). */
    List<Decision> read(SitePlacement placement);

    /** Every node (every replica, for {@link LogOrderAgreement}) made {@code txn} visible: forget it. */
    void forget(long txn);

    /** Whether {@code txn} is in this site's order and not forgotten yet. */
    boolean knows(long txn);

    /** This site's update calls not yet placed for good by the log. */
    int pending();

    Counters counters();

    /**
     * The oldest of this site's calls that has waited longer than {@code patience} for the other sites' placements,
     * and what it waits for; empty if none has (and always for an agreement without placements).
     */
    Optional<String> stalled(Duration patience);
}
