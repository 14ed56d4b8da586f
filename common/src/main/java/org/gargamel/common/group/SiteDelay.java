package org.gargamel.common.group;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.NameCache;

/**
 * A wide-area link between sites on one machine (multi-site, docs/multisite.md): a JGroups protocol, above the group
 * membership (so failure detection and views are not delayed, and messages come in their order), that holds each
 * message from a member of another site for that pair of sites' one-way delay before it passes it up. Messages within a site pass at once. The delay is the receiver's to apply, so a multicast is delayed
 * per receiving site, and one delay per pair keeps each sender's messages in their order.
 *
 * <p>JGroups' own DELAY delays all of a member's messages alike; sites need a delay per link. A member's site is looked
 * up by its logical name ({@code siteOf}); a member not in it (a client, a process of no site) is never delayed.
 */
public final class SiteDelay extends Protocol {
    /** The one-way delay between two sites, the same both ways; none within a site. */
    public record Links(Map<String, String> siteOf, Map<String, Duration> betweenSites) {
        public static final Links NONE = new Links(Map.of(), Map.of());

        public Links {
            siteOf = Map.copyOf(siteOf);
            betweenSites = Map.copyOf(betweenSites);
            for (Map.Entry<String, Duration> link : betweenSites.entrySet()) {
                if (link.getValue().isNegative()) {
                    throw new IllegalArgumentException("link " + link.getKey() + ": a delay cannot be negative");
                }
            }
        }

        /** Every pair of the sites in {@code siteOf} {@code delay} apart. */
        public static Links uniform(Map<String, String> siteOf, Duration delay) {
            Map<String, Duration> links = new java.util.HashMap<>();
            for (String a : siteOf.values()) {
                for (String b : siteOf.values()) {
                    if (!a.equals(b)) {
                        links.put(key(a, b), delay);
                    }
                }
            }
            return new Links(siteOf, links);
        }

        /** The delay from site {@code from} to site {@code to} (zero within a site or for an unknown pair). */
        public Duration delay(String from, String to) {
            if (from == null || to == null || from.equals(to)) {
                return Duration.ZERO;
            }
            return betweenSites.getOrDefault(key(from, to), Duration.ZERO);
        }

        public boolean isEmpty() {
            return betweenSites.values().stream().allMatch(Duration::isZero);
        }

        /** The key of the link between {@code a} and {@code b}, whichever way. */
        public static String key(String a, String b) {
            return a.compareTo(b) < 0 ? a + "<->" + b : b + "<->" + a;
        }
    }

    private final String site;
    private final Links links;
    private final DelayLine held;

    /** @param site the site of the member whose stack this is */
    public SiteDelay(String site, Links links) {
        this.site = Objects.requireNonNull(site, "site");
        this.links = Objects.requireNonNull(links, "links");
        this.held = new DelayLine("site-delay-" + site, this::passUp);
    }

    @Override
    public void start() throws Exception {
        super.start();
        held.start();
    }

    @Override
    public void stop() {
        held.stop();
        super.stop();
    }

    @Override
    public Object up(Message message) {
        long nanos = delayFrom(message.getSrc());
        if (nanos == 0) {
            return up_prot.up(message);
        }
        held.hold(message, System.nanoTime() + nanos);
        return null;
    }

    @Override
    public void up(MessageBatch batch) {
        long nanos = delayFrom(batch.sender());
        if (nanos == 0) {
            up_prot.up(batch);
            return;
        }
        long due = System.nanoTime() + nanos;
        for (Message message : batch) {
            held.hold(message, due);
        }
        batch.clear();
    }

    private long delayFrom(Address sender) {
        if (sender == null) {
            return 0;
        }
        String name = NameCache.get(sender);
        return links.delay(links.siteOf().get(name), site).toNanos();
    }

    private void passUp(Message message) {
        try {
            up_prot.up(message);
        } catch (RuntimeException e) {
            log.warn("%s: a delayed message from %s failed above: %s", site, message.getSrc(), e);
        }
    }
}
