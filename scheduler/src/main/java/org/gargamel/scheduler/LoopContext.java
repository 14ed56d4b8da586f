package org.gargamel.scheduler;

import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Message;
import org.jgroups.Address;

/**
 * What the objects the scheduler's event loop owns need of the loop: to send, to run work on it, to fail it, whether
 * it still runs, and to name the transaction the running event is about (for the fatal log line).
 */
record LoopContext(
        BiConsumer<Address, Message> sender,
        BiConsumer<Supplier<String>, Runnable> tasks,
        Consumer<FatalException> failures,
        BooleanSupplier isRunning,
        LongConsumer eventTxn) {
    /** Sends {@code message} to {@code target}; a failed send is logged, and the view change settles the rest. */
    void send(Address target, Message message) {
        sender.accept(target, message);
    }

    /**
     * Runs {@code task} on the loop, as an event named by {@code name} (from any thread); the name is built only if the
     * event fails, not for every schedule-log entry read.
     */
    void onLoop(Supplier<String> name, Runnable task) {
        tasks.accept(name, task);
    }

    /** The scheduler cannot go on (from any thread). */
    void fail(FatalException failure) {
        failures.accept(failure);
    }

    /** Whether the scheduler still runs (not closed). */
    boolean running() {
        return isRunning.getAsBoolean();
    }

    /** The transaction the running event is about. */
    void about(long txn) {
        eventTxn.accept(txn);
    }
}
