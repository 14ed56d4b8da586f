package org.gargamel.scheduler.sites;

import java.util.Map;

/**
 * When a site's nodes acknowledge a call (docs/multisite.md; the launcher's {@code --ack}): once every site's majority
 * holds its write-set (one write-set log for every site), or once its own site's log does (a write-set log per site,
 * shipped to the others after). The scheduler is not told: a node of a site with its own log reports its position
 * there ({@code Progress.logPosition}, never 0 once it applied an entry), and a placement carries it.
 */
public enum Acknowledgement {
    /** One write-set log for every site: a placement carries no position, and a barrier waits for that log alone. */
    ALL_SITES {
        @Override
        void shippedBefore(SitePlacement placement, Map<String, Long> barrier) {}
    },
    /** A write-set log per site: a barrier also waits for what the placing owner had logged when it placed the call. */
    SITE {
        @Override
        void shippedBefore(SitePlacement placement, Map<String, Long> barrier) {
            barrier.put(placement.owner(), placement.logPosition());
        }
    };

    /** The acknowledgement a reported or placed log position shows: positions are counted only with a log per site. */
    public static Acknowledgement ofLogPosition(long logPosition) {
        return logPosition > 0 ? SITE : ALL_SITES;
    }

    /** Adds to a spanning call's {@code barrier} what {@code placement} says it must wait for, if anything. */
    abstract void shippedBefore(SitePlacement placement, Map<String, Long> barrier);
}
