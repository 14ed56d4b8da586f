package org.gargamel.common.lifecycle;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/** Callbacks on futures whose outcome the callback itself deals with (a failure included). */
public final class Futures {
    private Futures() {}

    /**
     * Runs {@code action} with the result or the failure once {@code future} completes. The future derived from it is
     * of no use: {@code action} is where a failure is handled (it must not throw).
     */
    public static <T> void whenDone(CompletableFuture<T> future, BiConsumer<? super T, ? super Throwable> action) {
        var unused = future.whenComplete(action);
    }
}
