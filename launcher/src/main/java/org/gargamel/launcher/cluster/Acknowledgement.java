package org.gargamel.launcher.cluster;

import java.util.Optional;

/**
 * What a multi-site call's acknowledgement waits for, with its one spelling from {@code --ack} to result.json's
 * {@code acknowledgement} (docs/multisite.md). The node's configuration names the same choice by where the write-set log
 * lives ({@code writeSetLog}); {@link #writeSetLog()} is that spelling. Guarded by {@code CommandLineParsingTest}.
 */
public enum Acknowledgement {
    /** A majority of every replica of every site holds the write-set: one write-set log across the sites. */
    ALL_SITES("all-sites", "cluster"),
    /**
     * A majority of the call's own site's replicas holds it: a write-set log per site, shipped to the other sites after
     * (only with site-owned conflict classes: a site's own calls alone may commit without the other sites).
     */
    SITE("site", "site");

    private final String spelling;
    private final String writeSetLog;

    Acknowledgement(String spelling, String writeSetLog) {
        this.spelling = spelling;
        this.writeSetLog = writeSetLog;
    }

    /** How {@code --ack} and result.json spell it. */
    public String spelling() {
        return spelling;
    }

    /** The node configuration's {@code writeSetLog} for it. */
    public String writeSetLog() {
        return writeSetLog;
    }

    /** The acknowledgement {@code --ack} spells {@code text}, or empty. */
    public static Optional<Acknowledgement> parse(String text) {
        for (Acknowledgement acknowledgement : values()) {
            if (acknowledgement.spelling.equals(text)) {
                return Optional.of(acknowledgement);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return spelling;
    }
}
