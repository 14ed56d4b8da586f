package org.gargamel.scheduler.sites;

import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The property tests' discrete-event clock: actions run in time order, ties in the order they were scheduled. Messages
 * of one ordered channel (the schedule log to a site, the write-set log to a replica) are delivered {@link #inOrder}.
 */
final class SimulatedTime {
    /** A site's calls, each submitted at its time. */
    @FunctionalInterface
    interface Submission {
        void submit(int site, long txn);
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final Map<Integer, Long> lastDelivery = new HashMap<>();
    private long now;
    private long eventNumber;

    long now() {
        return now;
    }

    void after(long delay, Runnable action) {
        at(now + delay, action);
    }

    void at(long time, Runnable action) {
        events.add(new Event(time, eventNumber++, action));
    }

    /** Runs {@code action} on {@code channel} {@code delay} from now, but not before what was sent on it earlier. */
    void inOrder(int channel, long delay, Runnable action) {
        long time = Math.max(lastDelivery.getOrDefault(channel, 0L), now + delay);
        lastDelivery.put(channel, time);
        at(time, action);
    }

    /** Each site submits {@code calls} calls, ids {@code (site + 1) * 1,000,000 + i}, 1 to 8 ticks apart. */
    void submitCalls(int sites, int calls, Random random, Submission submission) {
        for (int s = 0; s < sites; s++) {
            long time = 0;
            for (int i = 1; i <= calls; i++) {
                time += 1 + random.nextInt(8);
                long txn = (s + 1L) * 1_000_000 + i;
                int site = s;
                at(time, () -> submission.submit(site, txn));
            }
        }
    }

    /** Runs every action, and those they schedule, until none is left. */
    void runAll() {
        while (!events.isEmpty()) {
            Event event = events.poll();
            now = event.time;
            event.action.run();
        }
    }

    private record Event(long time, long number, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            return time != other.time ? Long.compare(time, other.time) : Long.compare(number, other.number);
        }
    }
}
