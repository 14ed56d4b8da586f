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
public sealed interface PlacedByOwners extends Agreement permits OwnedAgreement, AbortFreeAgreement {
    /** The sites that own a key of {@code keys} (in the order met). */
    Set<String> ownersOf(List<WriteKey> keys);

    /** Whether a call whose keys {@code owners} own is this site's alone: ordered in the site's core, never logged. */
    boolean local(Set<String> owners);

    /** Whether a placement of {@code txn} by this site (this scheduler's or an earlier one's) is in the log. */
    boolean placedHere(long txn);

    /** Whether {@code txn} is a spanning call read from the log and not forgotten. */
    boolean isSpanning(long txn);

    /** Calls in this site's order, not yet forgotten. */
    int size();
}
