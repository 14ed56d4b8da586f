package org.gargamel.node.apply;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.jdbc.Rollbacks;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.node.CpuClock;

/**
 * Applies several write-sets in one transaction (issue 17: one round trip, one commit and one position write for
 * several write-sets, their changes merged into fewer statements). A group forms only from entries already delivered:
 * a write-set joins it if its back-dependencies are visible here or in the group; the group is applied once it is full
 * or the next delivered entry is not a write-set (or none waits), and before anything that needs every earlier entry
 * reflected (a mark, an ABANDON, an own SI commit, a position write: {@link #flush}). So a replica that keeps up
 * applies one write-set per transaction, and one that falls behind catches up in groups. Its members are held in the
 * position until the group commits.
 */
final class GroupApplier implements RemoteApplier {
    private final ApplyContext context;
    private final SerialApplier alone;
    /** The most write-sets applied in one transaction (more than 1). */
    private final int limit;
    /** Whether the next delivered entry is a write-set (the group may grow without waiting). */
    private final BooleanSupplier moreComing;

    /** Write-sets taken for the next group transaction, in log order, not applied yet. */
    private final List<LogEntry> group = new ArrayList<>();
    /** Their transactions. */
    private final Set<Long> groupTxns = new HashSet<>();

    GroupApplier(ApplyContext context, int limit, BooleanSupplier moreComing) {
        this.context = context;
        this.alone = new SerialApplier(context);
        this.limit = limit;
        this.moreComing = moreComing;
    }

    @Override
    public void take(LogEntry entry, WriteSet writeSet) throws SQLException, InterruptedException {
        long index = entry.index();
        long txn = writeSet.txnId();
        AppliedPosition position = context.position();
        // Taken: the group applied before it does not record a position past it (a write-set that waited in its
        // chain comes after later entries: AppliedPositionTest).
        position.hold(index);
        if (!group.isEmpty() && (writeSet.changes().isEmpty() || !dependenciesMetWithGroup(writeSet))) {
            flush();
        }
        if (group.isEmpty()) {
            context.awaitDependencies(writeSet, index);
        }
        if (writeSet.changes().isEmpty()) {
            position.release(index);
            position.handled(index);
            context.visible().accept(txn);
            return;
        }
        group.add(entry);
        groupTxns.add(txn);
        position.handled(index);
        if (group.size() >= limit || !moreComing.getAsBoolean()) {
            flush();
        }
    }

    private boolean dependenciesMetWithGroup(WriteSet writeSet) {
        for (long dependency : writeSet.backDependencies()) {
            if (!groupTxns.contains(dependency) && !context.visibility().isVisible(dependency)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Applies the group in one transaction, with the position it may record and committed_ahead rows for its members
     * past that position (a write-set before them still held). Its statements wait at most
     * {@link ApplyLoop#GROUP_LOCK_TIMEOUT_MILLIS} for a row lock: PSI lets a remote write-set share a row with a local
     * call (column-disjoint updates, increments), and a group holding several write-sets' rows may wait for a call
     * that waits for it, where one write-set alone keeps its origin's lock order. If the group fails for that or any
     * other reason (a unique value passed from one row to another, which one statement may meet in the wrong order), it
     * is rolled back and its write-sets applied one per transaction, which wait as long as they need to and report a
     * failure of their own; but a group that failed because the database is gone ends the loop with that error, which
     * fences the node (docs/node.md, Fencing). The statistics share the group's time and CPU among its write-sets by
     * their rows.
     */
    @Override
    public void flush() throws SQLException {
        if (group.isEmpty()) {
            return;
        }
        List<LogEntry> members = new ArrayList<>(group);
        group.clear();
        groupTxns.clear();
        if (members.size() == 1) {
            applyMember(members.get(0));
            return;
        }
        AppliedPosition position = context.position();
        List<WriteSet.RowChange> changes = new ArrayList<>();
        for (LogEntry member : members) {
            changes.addAll(((WriteSet) member.message()).changes());
        }
        List<AppliedPosition.Ahead> taken = new ArrayList<>();
        for (LogEntry member : members) {
            position.release(member.index());
            taken.add(new AppliedPosition.Ahead(((WriteSet) member.message()).txnId(), member.index()));
        }
        AppliedPosition.Write write = position.forGroup(taken);
        CpuClock.Timing start = context.cpu().start();
        try {
            context.applier().apply(changes, write.bookkeeping(), ApplyLoop.GROUP_LOCK_TIMEOUT_MILLIS);
            context.connection().commit();
        } catch (SQLException e) {
            Rollbacks.after(context.connection(), e);
            if (SqlErrorKind.isConnectionLoss(e)) {
                throw e; // the database is gone: no write-set of the group can be applied alone either (fencing)
            }
            context.statistics().groupGaveWay();
            ApplyContext.LOG.debug(
                    "{}: a group of {} write-sets gave way ({}); applying them one by one",
                    context.node(),
                    members.size(),
                    e.getMessage());
            members.forEach(member -> position.hold(member.index()));
            for (LogEntry member : members) {
                applyMember(member);
            }
            return;
        }
        CpuClock.Elapsed elapsed = start.stop();
        context.statistics().appliedGroup(members.size());
        for (LogEntry member : members) {
            WriteSet writeSet = (WriteSet) member.message();
            context.statistics()
                    .applied(
                            writeSet.procedure(),
                            elapsed.share(writeSet.changes().size(), changes.size()));
        }
        position.committed(write);
        for (LogEntry member : members) {
            context.visible().accept(((WriteSet) member.message()).txnId());
        }
    }

    /** One write-set taken for a group, applied alone after all. */
    private void applyMember(LogEntry member) throws SQLException {
        context.position().release(member.index());
        WriteSet writeSet = (WriteSet) member.message();
        try {
            alone.applyAlone(member, writeSet);
        } catch (SQLException e) {
            throw new SQLException(
                    "entry " + member.index() + " (" + writeSet.describe() + "): " + e.getMessage(),
                    e.getSQLState(),
                    e);
        }
        context.visible().accept(writeSet.txnId());
    }
}
