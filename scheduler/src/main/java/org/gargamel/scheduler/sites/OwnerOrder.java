package org.gargamel.scheduler.sites;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.gargamel.classifier.WriteKey;
import org.gargamel.classifier.index.ConflictIndex;

/**
 * What the agreements placed by owners ({@link OwnedAgreement}, {@link AbortFreeAgreement}) both keep about one site's
 * order: its conflict index, the spanning calls read from the log, this scheduler's calls appended and not read back,
 * and this site's calls waiting for the other sites' placements.
 *
 * <p>Single-threaded: owned by its agreement, on the site scheduler's event loop.
 */
final class OwnerOrder {
    /** A spanning call of this site waiting for its owners' placements. */
    static final class Waiting {
        final Set<String> owners;
        final TreeSet<Long> dependencies = new TreeSet<>();
        /** The other owners' log positions, from their placements ({@link Acknowledgement#SITE}). */
        final Map<String, Long> shippedBefore = new HashMap<>();

        final boolean orphan;
        /** Abort-free: placed before this scheduler had read the log up to its own first entry. */
        boolean behindABarrier;
        /** When this scheduler began to wait for it ({@link System#nanoTime}). */
        final long since = System.nanoTime();

        Waiting(Set<String> owners, boolean orphan) {
            this.owners = owners;
            this.orphan = orphan;
        }
    }

    final String site;
    final ConflictIndex index = new ConflictIndex();
    /** The calls in {@link #index}. */
    final Set<Long> indexed = new HashSet<>();
    /** The spanning calls among them (read from the log), and those this site's placement of was read back. */
    final Set<Long> spanning = new HashSet<>();

    final Set<Long> placedByThisSite = new HashSet<>();
    /** This scheduler's spanning calls appended and not yet read back from the log. */
    final Set<Long> appended = new HashSet<>();
    /** This site's spanning calls read from the log, waiting for other owners' placements. */
    final Map<Long, Waiting> waiting = new HashMap<>();

    final SiteStreams streams = new SiteStreams();

    long nextSequence = 1;
    long localCount;
    long spanningCount;
    long placedForOthersCount;

    OwnerOrder(String site) {
        this.site = Objects.requireNonNull(site, "site");
    }

    /** Refuses a call this site placed already. */
    void checkNew(long txn) {
        if (indexed.contains(txn) || appended.contains(txn)) {
            throw new IllegalArgumentException("transaction " + txn + " is already placed at site " + site);
        }
    }

    /** The next entry of this scheduler's stream in the log. */
    ScheduleEntry nextEntry(long txn, List<WriteKey> keys) {
        return new ScheduleEntry(site, nextSequence++, txn, keys);
    }

    /** A placement read from the log: this site's own of a call it holds is remembered ({@link #placedByThisSite}). */
    void noteOwn(SitePlacement placement) {
        if (placement.owner().equals(site) && indexed.contains(placement.txn())) {
            placedByThisSite.add(placement.txn());
        }
    }

    /** {@code txn} leaves the index; whether it was there. */
    boolean forget(long txn) {
        if (!indexed.remove(txn)) {
            return false;
        }
        index.remove(txn);
        spanning.remove(txn);
        placedByThisSite.remove(txn);
        return true;
    }

    int pending() {
        return appended.size() + waiting.size();
    }

    /** The oldest waiting call past {@code patience}, with {@code why} it waits, and how many wait. */
    Optional<String> stalled(Duration patience, Function<Map.Entry<Long, Waiting>, String> why) {
        long now = System.nanoTime();
        Map.Entry<Long, Waiting> oldest = null;
        for (Map.Entry<Long, Waiting> call : waiting.entrySet()) {
            if (oldest == null || call.getValue().since < oldest.getValue().since) {
                oldest = call;
            }
        }
        if (oldest == null || now - oldest.getValue().since < patience.toNanos()) {
            return Optional.empty();
        }
        return Optional.of("call " + oldest.getKey() + (oldest.getValue().orphan ? " (an earlier scheduler's)" : "")
                + " has waited " + (now - oldest.getValue().since) / 1_000_000 + " ms for its place: "
                + why.apply(oldest) + "; " + waiting.size() + " call(s) of this site wait");
    }
}
