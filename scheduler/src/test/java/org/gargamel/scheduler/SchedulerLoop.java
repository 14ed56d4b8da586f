package org.gargamel.scheduler;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Tests of other packages: a fence through a scheduler's loop. Every event the loop had queued when the fence was
 * enqueued (views, reports, notices) has been handled when {@link #fence} returns, so an assertion that something did
 * not happen, made after it, cannot pass merely because the loop was slow.
 */
public final class SchedulerLoop {
    private SchedulerLoop() {}

    /** Waits until {@code server}'s loop has handled every event queued before this call; fails after {@code timeout}. */
    public static void fence(SchedulerServer server, Duration timeout) throws InterruptedException {
        CountDownLatch handled = new CountDownLatch(1);
        server.runOnLoop("test fence", handled::countDown);
        if (!handled.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the scheduler's loop did not reach a fence within " + timeout.toMillis() + " ms");
        }
    }
}
