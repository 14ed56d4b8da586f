package org.gargamel.launcher.cluster;

import java.util.List;

/**
 * How several sites are scheduled: each site's own scheduler, the schedulers agreeing on one order through the
 * schedule log ({@link Agreeing}); or, for comparison only, no agreement at all: site-1's one scheduler serves every
 * site, the other sites' clients calling it from afar ({@link OneScheduler}). {@code --agreement} names both; result.json
 * keeps that name. Guarded by {@code CommandLineParsingTest}.
 */
public sealed interface SitesTopology {
    /** What {@code --agreement} and result.json's {@code agreement} call it. */
    String agreement();

    /** What a call's acknowledgement waits for. */
    Acknowledgement acknowledgement();

    /** The agreements among the sites' schedulers ({@code --agreement}), in the order the help lists them. */
    List<String> AGREEMENTS = List.of("optimistic", "pessimistic", SitesPlan.OWNED, SitesPlan.ABORT_FREE);

    /**
     * The topology {@code --agreement agreement --ack acknowledgement} asks for.
     *
     * @throws IllegalArgumentException naming what is wrong: an unknown agreement, or a per-site acknowledgement
     *     without site-owned classes
     */
    static SitesTopology of(String agreement, Acknowledgement acknowledgement) {
        if (agreement.equals(OneScheduler.NAME)) {
            if (acknowledgement != Acknowledgement.ALL_SITES) {
                throw new IllegalArgumentException("a write-set log per site needs agreement owned, got " + agreement);
            }
            return new OneScheduler();
        }
        return new Agreeing(agreement, acknowledgement);
    }

    /** Every site has its own scheduler; they agree through the schedule log. */
    record Agreeing(String agreement, Acknowledgement acknowledgement) implements SitesTopology {
        public Agreeing {
            if (!AGREEMENTS.contains(agreement)) {
                throw new IllegalArgumentException(
                        "agreement: one of " + AGREEMENTS + " or " + OneScheduler.NAME + ", got " + agreement);
            }
            if (acknowledgement == Acknowledgement.SITE && !agreement.equals(SitesPlan.OWNED)) {
                throw new IllegalArgumentException("a write-set log per site needs agreement owned, got " + agreement);
            }
        }
    }

    /** No agreement: site-1's scheduler, with every node, serves every site (the thesis's one site, distant clients). */
    record OneScheduler() implements SitesTopology {
        /** How {@code --agreement} and result.json name it. */
        public static final String NAME = "one-scheduler";

        @Override
        public String agreement() {
            return NAME;
        }

        @Override
        public Acknowledgement acknowledgement() {
            return Acknowledgement.ALL_SITES;
        }
    }
}
