package org.gargamel.common.group;

import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jgroups.Message;

/**
 * Holds messages until they are due and hands them on, on a thread of its own, in the order they are due and, when
 * due at once, in the order they came: what the delaying protocols ({@link SiteDelay}, {@link DistantMember}) share.
 * One delay per line keeps a sender's messages in their order.
 */
final class DelayLine {
    private final String name;
    private final Consumer<Message> onward;
    private final DelayQueue<Held> held = new DelayQueue<>();
    private final AtomicLong order = new AtomicLong();
    private Thread releaser;

    /**
     * @param name   the thread's name
     * @param onward what a due message is handed to (up or down the stack); a failure there is the caller's to log
     */
    DelayLine(String name, Consumer<Message> onward) {
        this.name = name;
        this.onward = onward;
    }

    void start() {
        releaser = new Thread(this::release, name);
        releaser.setDaemon(true);
        releaser.start();
    }

    void stop() {
        if (releaser != null) {
            releaser.interrupt();
        }
        held.clear();
    }

    /** Holds {@code message} until {@code dueNanos} ({@link System#nanoTime()}). */
    void hold(Message message, long dueNanos) {
        held.add(new Held(message, dueNanos, order.incrementAndGet()));
    }

    private void release() {
        while (!Thread.currentThread().isInterrupted()) {
            Held due;
            try {
                due = held.take();
            } catch (InterruptedException e) {
                return;
            }
            onward.accept(due.message);
        }
    }

    private record Held(Message message, long dueNanos, long order) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Held that = (Held) other;
            int byDue = Long.compare(dueNanos, that.dueNanos);
            return byDue != 0 ? byDue : Long.compare(order, that.order);
        }
    }
}
