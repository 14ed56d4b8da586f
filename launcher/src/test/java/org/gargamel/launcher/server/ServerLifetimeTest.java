package org.gargamel.launcher.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.testing.Await;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A server command ends on the first of: its server's failure (exit 3) or its parent gone (exit 143); the watchdog
 * tells the command, it never exits the JVM itself.
 */
@Tag("unit")
class ServerLifetimeTest {

    private static CompletableFuture<Integer> awaitInBackground(ServerLifetime lifetime) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return lifetime.await();
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        });
    }

    @Test
    void aServerFailureEndsTheCommandWithExitThree() throws Exception {
        CompletableFuture<Long> parentGone = new CompletableFuture<>();
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        ServerLifetime lifetime = new ServerLifetime("node-1", parentGone);
        lifetime.failWhen(failure);
        CompletableFuture<Integer> exit = awaitInBackground(lifetime);
        assertFalse(exit.isDone(), "nothing has ended the server yet");
        failure.complete(new IllegalStateException("the write-set of transaction 7 does not apply"));
        assertEquals(ExitCodes.FATAL, exit.get(10, TimeUnit.SECONDS));
        parentGone.complete(42L);
        assertEquals(ExitCodes.FATAL, lifetime.await(), "the first way to end decides");
    }

    @Test
    void aFailureFutureThatFailsCountsAsAFailure() throws Exception {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        ServerLifetime lifetime = new ServerLifetime("scheduler", new CompletableFuture<>());
        lifetime.failWhen(failure);
        failure.completeExceptionally(new IllegalStateException("the loop died"));
        assertEquals(ExitCodes.FATAL, awaitInBackground(lifetime).get(10, TimeUnit.SECONDS));
    }

    @Test
    void theParentGoneEndsTheCommandWith143() throws Exception {
        CompletableFuture<Long> parentGone = new CompletableFuture<>();
        ServerLifetime lifetime = new ServerLifetime("scheduler", parentGone);
        lifetime.failWhen(new CompletableFuture<>());
        CompletableFuture<Integer> exit = awaitInBackground(lifetime);
        parentGone.complete(4242L);
        assertEquals(ExitCodes.PARENT_GONE, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aFailedWatchOfTheParentEndsTheCommandWithExitThreeNotNever() throws Exception {
        CompletableFuture<Long> parentGone = new CompletableFuture<>();
        ServerLifetime lifetime = new ServerLifetime("node-1", parentGone);
        lifetime.failWhen(new CompletableFuture<>());
        CompletableFuture<Integer> exit = awaitInBackground(lifetime);
        parentGone.completeExceptionally(new IllegalStateException("cannot read the parent's process handle"));
        assertEquals(ExitCodes.FATAL, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void theWatchdogCompletesItsFutureWhenTheParentEnds() throws Exception {
        Process parent = new ProcessBuilder("sleep", "60").start();
        try (ParentWatchdog watchdog = ParentWatchdog.watching(parent.pid())) {
            assertFalse(watchdog.parentGone().isDone(), "the parent runs");
            parent.destroyForcibly();
            Await.until(
                    "the watchdog to see the parent gone",
                    Duration.ofSeconds(10),
                    () -> watchdog.parentGone().isDone());
            assertEquals(parent.pid(), watchdog.parentGone().get());
        } finally {
            parent.destroyForcibly();
        }
        long gone = ProcessHandle.current().pid() + 1_000_000;
        try (ParentWatchdog watchdog = ParentWatchdog.watching(gone)) {
            assertTrue(watchdog.parentGone().isDone(), "a parent that does not run is gone at once");
        }
    }
}
