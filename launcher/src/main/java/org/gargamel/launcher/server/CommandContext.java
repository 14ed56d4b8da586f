package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;

/**
 * What a command is given by the {@code main} that runs it: where its output goes ({@code out} for its results,
 * {@code err} for progress and status lines) and a future completed with the parent's pid when the process that
 * started this one is gone ({@link ParentWatchdog}; never completed when there is no parent to watch).
 */
public record CommandContext(PrintStream out, PrintStream err, CompletableFuture<Long> parentGone) {

    /** A context for a command run in this JVM (tests, tools): no parent to watch. */
    public static CommandContext of(PrintStream out, PrintStream err) {
        return new CommandContext(out, err, new CompletableFuture<>());
    }
}
