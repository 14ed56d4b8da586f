package org.gargamel.node.writeset;

import java.util.concurrent.CompletableFuture;
import org.gargamel.common.wire.Message;

/** Appends entries to the write-set log ({@link WriteSetLog}); the future completes once the entry is committed. */
@FunctionalInterface
public interface LogAppender {
    CompletableFuture<Void> append(Message message, String what);
}
