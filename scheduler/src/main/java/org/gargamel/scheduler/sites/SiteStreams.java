package org.gargamel.scheduler.sites;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gargamel.common.wire.TransactionIds;

/**
 * The schedule log as a FIFO channel per site and epoch (docs/multisite.md, FIFO per site): each scheduler of a site
 * numbers its entries from 1 (a successor cannot know how far its predecessor got, and the predecessor's last appends
 * may still be committed after it). An append may be committed twice (its leader died before it answered) or
 * overtake an earlier one of its stream (sent again later): this drops the second copy and holds an early entry back
 * until the ones before it are in. Every reader sees the same log, so every reader decides alike.
 *
 * <p>Single-threaded: the site scheduler's event loop owns it.
 */
final class SiteStreams {
    private record Stream(String site, long epoch) {
        static Stream of(ScheduleEntry entry) {
            return new Stream(entry.site(), TransactionIds.epochOf(entry.txn()));
        }
    }

    /** Per stream: the last sequence read from the log, and entries read ahead of a missing one. */
    private final Map<Stream, Long> readUpTo = new HashMap<>();

    private final Map<Stream, TreeMap<Long, ScheduleEntry>> heldBack = new HashMap<>();
    private long duplicates;
    private long heldBackCount;

    /**
     * The log committed {@code entry}: the entries now due in their stream's order (none for a copy already read or an
     * entry ahead of a missing one; more than one when it releases entries held back behind it).
     */
    List<ScheduleEntry> accept(ScheduleEntry entry) {
        Stream from = Stream.of(entry);
        long last = readUpTo.getOrDefault(from, 0L);
        TreeMap<Long, ScheduleEntry> ahead = heldBack.get(from);
        if (entry.sequence() <= last || (ahead != null && ahead.containsKey(entry.sequence()))) {
            duplicates++;
            return List.of();
        }
        if (entry.sequence() > last + 1) {
            heldBack.computeIfAbsent(from, s -> new TreeMap<>()).put(entry.sequence(), entry);
            heldBackCount++;
            return List.of();
        }
        List<ScheduleEntry> due = new ArrayList<>(1);
        due.add(entry);
        long next = entry.sequence();
        while (ahead != null && !ahead.isEmpty() && ahead.firstKey() == next + 1) {
            ScheduleEntry released = ahead.pollFirstEntry().getValue();
            due.add(released);
            next = released.sequence();
        }
        if (ahead != null && ahead.isEmpty()) {
            heldBack.remove(from);
        }
        readUpTo.put(from, next);
        return due;
    }

    /** How many entries of {@code site}'s scheduler of {@code epoch} have been read in order. */
    long readUpTo(String site, long epoch) {
        return readUpTo.getOrDefault(new Stream(site, epoch), 0L);
    }

    /** Copies of entries already read, dropped. */
    long duplicates() {
        return duplicates;
    }

    /** Entries that came ahead of a missing one of their stream and were held back. */
    long heldBack() {
        return heldBackCount;
    }
}
