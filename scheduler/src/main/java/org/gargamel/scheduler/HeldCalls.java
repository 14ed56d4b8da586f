package org.gargamel.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.gargamel.common.wire.SubmitCall;
import org.jgroups.Address;

/**
 * Calls received while no node can take them (this scheduler is not active yet, or no node serves yet: a take-over or
 * a start under way), with when each came: placed, in their arrival order, once a node serves; rejected after
 * {@link #HOLD_LIMIT}.
 *
 * <p>Single-threaded: owned by the scheduler's event loop.
 */
final class HeldCalls {
    /**
     * How long a call waits for a serving node before it is rejected. A take-over must fit in it: the nodes rejoin the
     * new scheduler only once they have finished the old one's calls, which took 9 s on a loaded 2-core machine
     * (SchedulerPartitionIT guards it), and the client's own call timeout is 60 s by default.
     */
    static final Duration HOLD_LIMIT = Duration.ofSeconds(15);

    /** A held call. */
    record Held(Address client, SubmitCall submit, long since) {}

    private final List<Held> held = new ArrayList<>();

    void hold(Address client, SubmitCall submit) {
        held.add(new Held(client, submit, System.nanoTime()));
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** Every held call, in arrival order, to {@code place}; none is held after. */
    void release(BiConsumer<Address, SubmitCall> place) {
        List<Held> waiting = new ArrayList<>(held);
        held.clear();
        for (Held call : waiting) {
            place.accept(call.client(), call.submit());
        }
    }

    /** The calls held longer than {@link #HOLD_LIMIT} at {@code now}, oldest first, to {@code expire}. */
    void expire(long now, java.util.function.Consumer<Held> expire) {
        while (!held.isEmpty() && now - held.get(0).since() > HOLD_LIMIT.toNanos()) {
            expire.accept(held.remove(0));
        }
    }
}
