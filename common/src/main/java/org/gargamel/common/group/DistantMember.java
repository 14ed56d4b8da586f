package org.gargamel.common.group;

import java.time.Duration;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/**
 * A member far from every other one, on one machine: a JGroups protocol that holds what its member sends and what
 * it receives for a one-way delay each, so that a round trip to any member costs twice the delay. It stands where
 * {@link SiteDelay} does, above the group membership (failure detection and views are not delayed) and below flow
 * control and fragmentation (whole messages, in their order).
 *
 * <p>For a client of a site whose scheduler is elsewhere: {@code compare --sites} measures one scheduler serving
 * every site, the other sites' clients calling it across the delay (docs/multisite.md). {@link SiteDelay} cannot do
 * that: it delays by the sender's site, and clients belong to none.
 */
public final class DistantMember extends Protocol {
    private final long oneWayNanos;
    private final DelayLine inbound;
    private final DelayLine outbound;

    public DistantMember(Duration oneWay) {
        if (oneWay.isNegative() || oneWay.isZero()) {
            throw new IllegalArgumentException("a distant member's delay must be positive, got " + oneWay);
        }
        this.oneWayNanos = oneWay.toNanos();
        this.inbound = new DelayLine("distant-in", this::passUp);
        this.outbound = new DelayLine("distant-out", this::passDown);
    }

    @Override
    public void start() throws Exception {
        super.start();
        inbound.start();
        outbound.start();
    }

    @Override
    public void stop() {
        inbound.stop();
        outbound.stop();
        super.stop();
    }

    @Override
    public Object down(Message message) {
        outbound.hold(message, System.nanoTime() + oneWayNanos);
        return null;
    }

    @Override
    public Object up(Message message) {
        inbound.hold(message, System.nanoTime() + oneWayNanos);
        return null;
    }

    @Override
    public void up(MessageBatch batch) {
        long due = System.nanoTime() + oneWayNanos;
        for (Message message : batch) {
            inbound.hold(message, due);
        }
        batch.clear();
    }

    private void passUp(Message message) {
        try {
            up_prot.up(message);
        } catch (RuntimeException e) {
            log.warn("a delayed message from %s failed above: %s", message.getSrc(), e);
        }
    }

    private void passDown(Message message) {
        try {
            down_prot.down(message);
        } catch (RuntimeException e) {
            log.warn("a delayed message to %s failed below: %s", message.getDest(), e);
        }
    }
}
