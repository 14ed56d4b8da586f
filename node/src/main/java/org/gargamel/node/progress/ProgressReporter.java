package org.gargamel.node.progress;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Settlement;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the scheduler which transactions became visible here (PROGRESS), so it can retire them from its graph once
 * every replica has them (DESIGN.md §4, garbage collection). Ids are batched: a thread sends what accumulated every
 * couple of milliseconds, up to {@value #BATCH} ids a message.
 */
public final class ProgressReporter {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);
    static final int BATCH = 4096;
    private static final long PAUSE_MILLIS = 2;

    private final String node;
    private final ConcurrentLinkedQueue<Long> visible = new ConcurrentLinkedQueue<>();
    private final Supplier<Address> scheduler;
    private final BiConsumer<Address, Message> send;

    /** {@code scheduler}: the scheduler's current address (null while none is known); {@code send}: on the control channel. */
    public ProgressReporter(String node, Supplier<Address> scheduler, BiConsumer<Address, Message> send) {
        this.node = node;
        this.scheduler = scheduler;
        this.send = send;
    }

    /** {@code txn} is visible here. Any thread. */
    public void visible(long txn) {
        visible.add(txn);
    }

    /**
     * How this node's log settled a departed node's transactions: sent at once (the scheduler answers or re-runs those
     * calls). With no scheduler known it is dropped (those calls' clients then time out).
     */
    public void settled(Settlement settlement) {
        Address target = scheduler.get();
        if (target != null) {
            send.accept(target, settlement);
        } else {
            LOG.warn("{}: no scheduler in sight: dropped {}", node, settlement.describe());
        }
    }

    /** The reporting loop, run by a supervised thread until interrupted. */
    public void run() throws InterruptedException {
        long[] batch = new long[BATCH];
        while (true) {
            int count = 0;
            Long txn;
            while (count < batch.length && (txn = visible.poll()) != null) {
                batch[count++] = txn;
            }
            Address target = scheduler.get();
            if (count > 0 && target != null) {
                send.accept(target, new Progress(node, Arrays.copyOf(batch, count)));
            } else if (count > 0) {
                LOG.warn(
                        "{}: no scheduler in sight: dropped the report of {} visible transaction(s) from {} to {}",
                        node,
                        count,
                        batch[0],
                        batch[count - 1]);
            }
            if (count < batch.length) {
                Thread.sleep(PAUSE_MILLIS);
            }
        }
    }
}
