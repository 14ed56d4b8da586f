package org.gargamel.launcher.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a server process (scheduler, node) ends, decided in one place. The command's thread waits in {@link #await()}
 * for the first of: a stop from outside (SIGTERM, Ctrl-C: the shutdown hook stops the server, exit 0), the server's
 * own failure (exit 3, logged with the reason), or the parent process gone (exit 143). The exit itself, and with it
 * the shutdown hook that stops the server in every case, is the {@code main}'s.
 */
final class ServerLifetime {
    private static final Logger LOG = LoggerFactory.getLogger(ServerLifetime.class);

    private final String name;
    private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();

    ServerLifetime(String name, CompletableFuture<Long> parentGone) {
        this.name = name;
        parentGone.thenRun(() -> exitCode.complete(ExitCodes.PARENT_GONE)).exceptionally(this::undecided);
    }

    /** On shutdown (SIGTERM, Ctrl-C, or the exit that follows {@link #await()}): runs {@code stop}, then exit 0. */
    void stopOnShutdown(Runnable stop) {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                stop.run();
                            } finally {
                                exitCode.complete(ExitCodes.OK);
                            }
                        },
                        name + "-shutdown"));
    }

    /** When {@code failure} completes (with the reason, or exceptionally), the server has failed: exit 3. */
    void failWhen(CompletableFuture<? extends Throwable> failure) {
        failure.handle((reason, error) -> {
                    Throwable cause = reason != null ? reason : error;
                    if (exitCode.complete(ExitCodes.FATAL)) {
                        LOG.error(
                                "{} failed and stops: {}",
                                name,
                                cause == null ? "no reason given" : cause.getMessage(),
                                cause);
                    }
                    return null;
                })
                .exceptionally(this::undecided);
    }

    /**
     * What decides the end failed instead (the parent's watch failed, or a callback above threw): the server stops,
     * exit 3, rather than leave the command waiting forever.
     */
    private Void undecided(Throwable error) {
        if (exitCode.complete(ExitCodes.FATAL)) {
            LOG.error("{} stops: what decides how it ends failed: {}", name, error.getMessage(), error);
        }
        return null;
    }

    /** Waits for the first way to end; its exit code. */
    int await() throws InterruptedException {
        try {
            return exitCode.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the exit code of " + name + " cannot fail", e);
        }
    }
}
