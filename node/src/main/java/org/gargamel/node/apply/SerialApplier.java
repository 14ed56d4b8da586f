package org.gargamel.node.apply;

import java.sql.SQLException;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;

/** Applies each write-set in a transaction of its own on the loop's connection, once its dependencies are visible. */
final class SerialApplier implements RemoteApplier {
    private final ApplyContext context;

    SerialApplier(ApplyContext context) {
        this.context = context;
    }

    @Override
    public void take(LogEntry entry, WriteSet writeSet) throws SQLException, InterruptedException {
        context.awaitDependencies(writeSet, entry.index());
        if (!writeSet.changes().isEmpty()) {
            applyAlone(entry, writeSet);
        } else {
            context.position().handled(entry.index());
        }
        context.visible().accept(writeSet.txnId());
    }

    /**
     * Applies one write-set in a transaction of its own, with the position it may record (and its committed_ahead row
     * if an earlier entry is held); marks its entry handled.
     */
    void applyAlone(LogEntry entry, WriteSet writeSet) throws SQLException {
        AppliedPosition position = context.position();
        long index = entry.index();
        long txn = writeSet.txnId();
        CpuClock.Timing start = context.cpu().start();
        AppliedPosition.Write write = position.forOne(index, txn);
        context.applier().apply(writeSet.changes(), write.bookkeeping());
        context.connection().commit();
        context.statistics().applied(writeSet.procedure(), start.stop());
        position.handled(index);
        position.committed(write);
    }
}
