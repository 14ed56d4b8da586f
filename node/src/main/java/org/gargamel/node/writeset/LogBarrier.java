package org.gargamel.node.writeset;

import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import org.gargamel.common.wire.LogMark;

/**
 * A call's barrier (site-owned conflict classes, docs/multisite.md): waits until this replica has applied every entry
 * the write-set log committed before the wait began. It appends a {@link LogMark} of its own and waits until the apply
 * loop meets it: everything before the mark is reflected here then. It costs one append to the log.
 */
public final class LogBarrier {
    private final String node;
    private final LogAppender log;
    private final LongFunction<CompletableFuture<Long>> markApplied;
    private final LongConsumer forgetMark;
    private final SecureRandom nonces = new SecureRandom();

    /**
     * @param markApplied the apply loop's future for the mark with a nonce ({@code ApplyLoop::markApplied})
     * @param forgetMark  drops that future when the wait fails ({@code ApplyLoop::forgetMark}), so none is kept for ever
     */
    public LogBarrier(
            String node, LogAppender log, LongFunction<CompletableFuture<Long>> markApplied, LongConsumer forgetMark) {
        this.node = node;
        this.log = log;
        this.markApplied = markApplied;
        this.forgetMark = forgetMark;
    }

    /**
     * Blocks until this replica reflects every entry committed before the call; returns the mark's index.
     *
     * @throws IllegalStateException if the log does not take the mark, or it is not applied within {@code timeoutMs}
     */
    public long await(long timeoutMs) throws InterruptedException {
        long nonce = nonces.nextLong();
        CompletableFuture<Long> applied = markApplied.apply(nonce);
        boolean met = false;
        try {
            log.append(new LogMark(node, nonce), "a call's barrier").get(timeoutMs, TimeUnit.MILLISECONDS);
            long index = applied.get(timeoutMs, TimeUnit.MILLISECONDS);
            met = true;
            return index;
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    node + ": the write-set log did not take a call's barrier: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(node + ": a call's barrier was not applied within " + timeoutMs + " ms", e);
        } finally {
            if (!met) {
                forgetMark.accept(nonce); // the apply loop keeps no future nobody waits for
            }
        }
    }
}
