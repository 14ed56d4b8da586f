package org.gargamel.node.apply;

import java.sql.Connection;
import java.util.List;
import java.util.function.LongConsumer;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.visibility.Visibility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the apply loop's parts share: this node, the loop's connection and what applies and measures on it, the
 * replica's position, and {@code visible} (a transaction is visible here: told to visibility and to progress).
 */
record ApplyContext(
        String node,
        Connection connection,
        WriteSetApplier applier,
        CpuClock cpu,
        Visibility visibility,
        NodeStatistics statistics,
        AppliedPosition position,
        LongConsumer visible) {

    /** The apply loop's parts log under its name. */
    static final Logger LOG = LoggerFactory.getLogger(ApplyLoop.class);

    /** Waits for a write-set's back-dependencies, saying every 10 s what it waits for (a stall must be visible). */
    void awaitDependencies(WriteSet writeSet, long index) throws InterruptedException {
        awaitDependencies(node, visibility, writeSet, index);
    }

    /** The same for any applier of {@code node}: this loop, or a parallel applier's thread ({@link ParallelApply}). */
    static void awaitDependencies(String node, Visibility visibility, WriteSet writeSet, long index)
            throws InterruptedException {
        long started = System.nanoTime();
        List<Long> missing = visibility.awaitAll(writeSet.backDependencies(), 10_000);
        while (!missing.isEmpty()) {
            LOG.warn(
                    "{}: entry {} ({}) has waited {} s for transaction(s) {} to be visible here",
                    node,
                    index,
                    writeSet.describe(),
                    (System.nanoTime() - started) / 1_000_000_000,
                    missing);
            missing = visibility.awaitAll(writeSet.backDependencies(), 10_000);
        }
    }
}
