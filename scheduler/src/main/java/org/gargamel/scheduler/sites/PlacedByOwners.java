package org.gargamel.scheduler.sites;

import java.util.List;
import java.util.Set;
import org.gargamel.classifier.WriteKey;

/**
 * The agreements where the sites that own a call's rows place it and append their placements to the log
 * ({@link OwnedAgreement}: each row one site's; {@link AbortFreeAgreement}: every row every site's). Their calls
 * conflict row by row ({@code Scheduler.conflictsByRow}), and a call may wait at this site for a home call not yet
 * dispatched.
 */
public abstract sealed class PlacedByOwners implements Agreement permits OwnedAgreement, AbortFreeAgreement {
    /** This site's order of the calls it knows; owned by the site scheduler's event loop, as the agreement is. */
    final OwnerOrder order;

    PlacedByOwners(String site) {
        this.order = new OwnerOrder(site);
    }

    /** The sites that own a key of {@code keys} (in the order met). */
    public abstract Set<String> ownersOf(List<WriteKey> keys);

    /** Whether a call whose keys {@code owners} own is this site's alone: ordered in the site's core, never logged. */
    public abstract boolean local(Set<String> owners);

    @Override
    public final String site() {
        return order.site;
    }

    /** Whether a placement of {@code txn} by this site (this scheduler's or an earlier one's) is in the log. */
    public final boolean placedHere(long txn) {
        return order.placedByThisSite.contains(txn);
    }

    /** Whether {@code txn} is a spanning call read from the log and not forgotten. */
    public final boolean isSpanning(long txn) {
        return order.spanning.contains(txn);
    }

    @Override
    public final boolean knows(long txn) {
        return order.indexed.contains(txn);
    }

    /** This site's spanning calls not yet dispatched: appended and not read back, or waiting for owners. */
    @Override
    public final int pending() {
        return order.pending();
    }

    /** Calls in this site's order, not yet forgotten. */
    public final int size() {
        return order.indexed.size();
    }
}
