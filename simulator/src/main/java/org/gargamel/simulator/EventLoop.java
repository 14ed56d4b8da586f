package org.gargamel.simulator;

import java.util.PriorityQueue;

/** Simulated time in milliseconds and the events due in it, run in time order (ties in the order they were made). */
final class EventLoop {
    private record Event(double time, long sequence, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Double.compare(time, other.time);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final PriorityQueue<Event> due = new PriorityQueue<>();
    private double now;
    private long sequence;

    double now() {
        return now;
    }

    /** Runs {@code action} {@code delayMs} from now. */
    void after(double delayMs, Runnable action) {
        due.add(new Event(now + delayMs, sequence++, action));
    }

    /** Runs the events due up to {@code endMs}, in order; those after it are left. */
    void runUntil(double endMs) {
        while (!due.isEmpty() && due.peek().time <= endMs) {
            Event event = due.poll();
            now = event.time;
            event.action.run();
        }
        now = Math.max(now, endMs);
    }
}
