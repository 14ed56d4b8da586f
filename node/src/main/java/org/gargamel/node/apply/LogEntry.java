package org.gargamel.node.apply;

import java.util.concurrent.CompletableFuture;
import org.gargamel.common.wire.Message;

/**
 * A committed log entry ({@code logId}: the log's identity, with the first entry only); or, with no message, a request
 * to record the position now (before a snapshot, {@code flushed} completed then), or {@link #WAKE}.
 */
record LogEntry(Message message, long index, String logId, CompletableFuture<Void> flushed) {
    /** Not an entry: a parallel applier finished a write-set ({@link ParallelApplier#takeFinished}). */
    static final LogEntry WAKE = new LogEntry(null, -2, null, null);

    LogEntry(Message message, long index, String logId) {
        this(message, index, logId, null);
    }

    boolean isWake() {
        return message == null && flushed == null;
    }
}
