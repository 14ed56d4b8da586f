package org.gargamel.node.apply;

import java.sql.SQLException;
import org.gargamel.common.wire.WriteSet;

/**
 * How this node applies the other replicas' write-sets (and its own of an earlier start that never committed here),
 * taken in log order: one per transaction on the loop's connection ({@link SerialApplier}), several per transaction
 * ({@link GroupApplier}), or on several connections at once ({@link ParallelApplier}). An entry taken and not yet
 * applied is held in the {@link AppliedPosition}, so the recorded position never passes it.
 */
sealed interface RemoteApplier permits SerialApplier, GroupApplier, ParallelApplier {
    /**
     * Takes another replica's write-set with changes or none, in log order, once its entry is due: applies it now, or
     * holds it to apply later. Its entry is handled when this returns; it is visible here once applied.
     */
    void take(LogEntry entry, WriteSet writeSet) throws SQLException, InterruptedException;

    /** Applies what is taken and waits for nothing else (an open group); else nothing. */
    default void flush() throws SQLException {}

    /** Takes in what was applied elsewhere since (parallel appliers); a failure there fails the loop. */
    default void takeFinished() throws SQLException {}

    /** Returns once every write-set taken so far is reflected here. */
    default void drain() throws SQLException, InterruptedException {
        flush();
    }

    /** Lets go of what it started (threads, connections). */
    default void close() {}
}
