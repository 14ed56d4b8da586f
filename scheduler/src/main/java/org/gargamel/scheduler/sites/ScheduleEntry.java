package org.gargamel.scheduler.sites;

import java.util.List;
import java.util.Objects;
import org.gargamel.classifier.WriteKey;

/**
 * One entry of the schedule log: an update call of {@code site}, the {@code sequence}-th that site appended (from 1),
 * with its transaction id and conflict keys. Every scheduler reads the same entries in the same order and places each
 * call after the conflicting calls before it: that order is the agreed one.
 *
 * <p>The sequence makes the log a FIFO channel per site: an append can be sent twice (a leader died before answering)
 * or overtake an earlier one (sent again later), and every reader drops the second copy and holds an early entry back
 * until the ones before it from its site are in.
 */
public record ScheduleEntry(String site, long sequence, long txn, List<WriteKey> keys) {
    public ScheduleEntry {
        Objects.requireNonNull(site, "site");
        if (sequence < 1) {
            throw new IllegalArgumentException("a schedule entry's sequence starts at 1, got " + sequence);
        }
        keys = List.copyOf(keys);
    }
}
