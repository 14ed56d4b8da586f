package org.gargamel.node.execution;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.gargamel.common.wire.Agreement;

/**
 * Where the schedule log placed this node's provisional calls (multi-site, docs/multisite.md): the {@link Agreement}
 * each one's site scheduler sent, by transaction, kept until the call's worker has used it. A decision may come before
 * the worker reaches the call (it then cancels a collided call instead of running it) or after the call ran (the run
 * stalls until then).
 */
public final class Agreements {
    private static final long GIVE_UP_CHECK_MILLIS = 20;

    private final Map<Long, CompletableFuture<Agreement>> decisions = new ConcurrentHashMap<>();
    private final Runnable wakeWaiters;

    /**
     * @param wakeWaiters wakes the workers waiting for back-dependencies ({@code Visibility::wakeAll}), so one waiting
     *     for a call's provisional ones sees at once that it collided
     */
    public Agreements(Runnable wakeWaiters) {
        this.wakeWaiters = wakeWaiters;
    }

    /** The site scheduler's decision for {@code agreement.txnId()}; a repeated one changes nothing. */
    public void decided(Agreement agreement) {
        decision(agreement.txnId()).complete(agreement);
        if (agreement.collided()) {
            wakeWaiters.run();
        }
    }

    /** Whether {@code txn} is known to have collided (its worker must not run it as dispatched). */
    boolean collided(long txn) {
        CompletableFuture<Agreement> decision = decisions.get(txn);
        return decision != null && decision.isDone() && decision.join().collided();
    }

    /** Whether the decision for {@code txn} is in (the run would not stall). */
    boolean decided(long txn) {
        CompletableFuture<Agreement> decision = decisions.get(txn);
        return decision != null && decision.isDone();
    }

    /** Waits for the decision for {@code txn} and forgets it. */
    Agreement await(long txn) throws InterruptedException {
        return awaitUnless(txn, () -> false);
    }

    /**
     * Waits for the decision for {@code txn} and forgets it; null if {@code giveUp} becomes true first (checked every
     * {@value #GIVE_UP_CHECK_MILLIS} ms: a new scheduler of the site took over, and the one that placed the call will
     * never send its decision; docs/multisite.md, A site scheduler's failover).
     */
    Agreement awaitUnless(long txn, BooleanSupplier giveUp) throws InterruptedException {
        CompletableFuture<Agreement> decision = decision(txn);
        try {
            while (true) {
                try {
                    return decision.get(GIVE_UP_CHECK_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (giveUp.getAsBoolean()) {
                        return null;
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("a decision never fails", e);
        } finally {
            decisions.remove(txn);
        }
    }

    private CompletableFuture<Agreement> decision(long txn) {
        return decisions.computeIfAbsent(txn, t -> new CompletableFuture<>());
    }
}
