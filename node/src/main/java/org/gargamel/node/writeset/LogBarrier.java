package org.gargamel.node.writeset;

import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import org.gargamel.common.wire.LogMark;
import org.gargamel.node.shipping.ShippedPositions;

/**
 * A call's barrier (site-owned conflict classes, docs/multisite.md): waits until this replica has applied every entry
 * the write-set log committed before the wait began. It appends a {@link LogMark} of its own and waits until the apply
 * loop meets it: everything before the mark is reflected here then. It costs one append to the log.
 *
 * <p>With a write-set log per site, the calls another owner forgot are in that site's log, not in this one: the call
 * also names how far that log had come when the owner placed it ({@code shippedBefore}), and the barrier first waits
 * until this site's log has taken what was shipped from there up to that point (then the mark also covers them).
 */
public final class LogBarrier {
    private final String node;
    private final LogAppender log;
    private final LongFunction<CompletableFuture<Long>> markApplied;
    private final LongConsumer forgetMark;
    private final SecureRandom nonces = new SecureRandom();
    /** What other sites shipped into this site's log (a log per site; else null). */
    private final ShippedPositions shipped;

    /**
     * @param markApplied the apply loop's future for the mark with a nonce ({@code ApplyLoop::markApplied})
     * @param forgetMark  drops that future when the wait fails ({@code ApplyLoop::forgetMark}), so none is kept for ever
     */
    public LogBarrier(
            String node, LogAppender log, LongFunction<CompletableFuture<Long>> markApplied, LongConsumer forgetMark) {
        this(node, log, markApplied, forgetMark, null);
    }

    /** {@code shipped}: a write-set log per site; null with one log for all sites. */
    public LogBarrier(
            String node,
            LogAppender log,
            LongFunction<CompletableFuture<Long>> markApplied,
            LongConsumer forgetMark,
            ShippedPositions shipped) {
        this.shipped = shipped;
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
        return await(Map.of(), timeoutMs);
    }

    /**
     * As {@link #await(long)}, after this site's log has taken what each site of {@code shippedBefore} shipped up to
     * the position given (ignored with one log for all sites).
     *
     * @throws IllegalStateException also if what was shipped is not taken within {@code timeoutMs}
     */
    public long await(Map<String, Long> shippedBefore, long timeoutMs) throws InterruptedException {
        if (shipped != null) {
            for (Map.Entry<String, Long> site : shippedBefore.entrySet()) {
                if (!shipped.await(site.getKey(), site.getValue(), timeoutMs)) {
                    throw new IllegalStateException(node + ": what site " + site.getKey() + " logged up to entry "
                            + site.getValue() + " was not shipped here within " + timeoutMs + " ms (" + shipped + ")");
                }
            }
        }
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
