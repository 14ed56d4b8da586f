package org.gargamel.common.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting in tests: poll a condition until it holds or a deadline passes (STYLE.md, Tests: never a bare sleep). The
 * failure names what was awaited and, where given, the state seen last.
 */
public final class Await {
    private static final long POLL_MILLIS = 10;

    private Await() {}

    /** Polls {@code condition} until true; fails with {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        until(what, timeout, condition, () -> "");
    }

    /** As {@link #until(String, Duration, BooleanSupplier)}; the failure also shows {@code state}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<?> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                Object seen = state.get();
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what
                        + (seen == null || seen.toString().isEmpty() ? "" : "; last seen: " + seen));
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
