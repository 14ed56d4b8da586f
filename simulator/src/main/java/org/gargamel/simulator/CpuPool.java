package org.gargamel.simulator;

import java.util.ArrayList;
import java.util.List;

/**
 * The CPU of one machine, shared by its running bursts of work as an operating system shares it (processor sharing): n
 * bursts on a machine of capacity c each progress at min(1, c / n) of a core. The capacity may be fractional: a shared
 * host that, saturated, delivers 1.5 of its 2 cores (measured: nested virtualisation leaves a core idle part of the
 * time even with a dozen threads runnable). Keeps the CPU handed out, for the utilisation.
 */
final class CpuPool {
    private static final class Burst {
        double remaining;
        final Runnable done;

        Burst(double ms, Runnable done) {
            this.remaining = ms;
            this.done = done;
        }
    }

    private static final double EPSILON = 1e-9;

    private final EventLoop events;
    private final double capacity;
    private final List<Burst> active = new ArrayList<>();
    private double updatedAt;
    private double busyMs;
    /** Tells the latest scheduled completion from the superseded ones left in the event queue. */
    private long generation;

    CpuPool(EventLoop events, double capacity) {
        this.events = events;
        this.capacity = capacity;
    }

    /** Runs {@code ms} of CPU work, then {@code done}. */
    void run(double ms, Runnable done) {
        if (ms <= 0) {
            done.run();
            return;
        }
        advance();
        active.add(new Burst(ms, done));
        scheduleNextCompletion();
    }

    private double rate() {
        return active.isEmpty() ? 0 : Math.min(1.0, capacity / active.size());
    }

    /** Brings every running burst's remaining work up to now. */
    private void advance() {
        double elapsed = events.now() - updatedAt;
        if (elapsed > 0 && !active.isEmpty()) {
            double rate = rate();
            for (Burst burst : active) {
                burst.remaining -= elapsed * rate;
            }
            busyMs += elapsed * rate * active.size();
        }
        updatedAt = events.now();
    }

    private void scheduleNextCompletion() {
        long scheduled = ++generation;
        if (active.isEmpty()) {
            return;
        }
        double least = Double.MAX_VALUE;
        for (Burst burst : active) {
            least = Math.min(least, burst.remaining);
        }
        events.after(Math.max(0, least) / rate(), () -> {
            if (scheduled != generation) {
                return; // a burst came or went since: a later completion was scheduled
            }
            advance();
            List<Burst> finished = new ArrayList<>();
            active.removeIf(burst -> {
                if (burst.remaining <= EPSILON) {
                    finished.add(burst);
                    return true;
                }
                return false;
            });
            scheduleNextCompletion();
            for (Burst burst : finished) {
                burst.done.run();
            }
        });
    }

    double capacity() {
        return capacity;
    }

    /** CPU milliseconds delivered so far. */
    double busyMs() {
        advance();
        return busyMs;
    }
}
