package org.gargamel.launcher.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * Several sites on this machine (docs/multisite.md): {@code count} sites named site-1 .. site-S, each with
 * {@code replicasPerSite} nodes, {@code delayMillis} apart, scheduled as {@code topology} says (each site's scheduler
 * agreeing through the schedule log, or one scheduler for every site: {@link SitesTopology}). The terminals of a
 * warehouse talk to one site when {@code partitioned} (warehouse w to site (w - 1) mod S, so sites rarely conflict), or
 * every site has terminals on every warehouse (terminal t to site t mod S, so sites conflict as often as TPC-C lets
 * them).
 */
public record SitesPlan(
        int count, int replicasPerSite, int delayMillis, SitesTopology topology, boolean partitioned, int warehouses) {
    public SitesPlan {
        if (count < 2) {
            throw new IllegalArgumentException("sites: at least 2, got " + count);
        }
        if (replicasPerSite < 1) {
            throw new IllegalArgumentException("replicas per site: at least 1, got " + replicasPerSite);
        }
        if (delayMillis < 0) {
            throw new IllegalArgumentException("site delay: not negative, got " + delayMillis);
        }
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses: at least 1, got " + warehouses);
        }
    }

    /** The agreement's name, as {@code --agreement} and result.json spell it (one-scheduler included). */
    public String agreement() {
        return topology.agreement();
    }

    /** What an acknowledgement waits for: a majority of every replica, or of the call's site's. */
    public Acknowledgement acknowledgement() {
        return topology.acknowledgement();
    }

    /** Site-owned conflict classes: warehouse w's rows are site (w - 1) mod S's (docs/multisite.md). */
    public static final String OWNED = "owned";

    /**
     * Every site places every call as it comes; dependency cycles run in id order: a collision waits, never kills
     * (docs/multisite.md, Abort-free agreement).
     */
    public static final String ABORT_FREE = "abort-free";

    /** What {@code --agreement} may be: an agreement among the sites' schedulers, or one-scheduler. */
    public static final List<String> AGREEMENTS = java.util.stream.Stream.concat(
                    SitesTopology.AGREEMENTS.stream(), java.util.stream.Stream.of(SitesTopology.OneScheduler.NAME))
            .toList();

    /** Whether each warehouse's rows belong to one site ({@link #OWNED}). */
    public boolean owned() {
        return agreement().equals(OWNED);
    }

    /**
     * With site-owned classes: the warehouses each site owns, by site name (warehouse w to site (w - 1) mod S, the site
     * its terminals call through when partitioned).
     */
    public java.util.Map<String, List<Long>> owners() {
        java.util.Map<String, List<Long>> owners = new java.util.LinkedHashMap<>();
        List<String> names = names();
        for (String name : names) {
            owners.put(name, new ArrayList<>());
        }
        for (int w = 1; w <= warehouses; w++) {
            owners.get(names.get((w - 1) % count)).add((long) w);
        }
        return owners;
    }

    /** Whether one scheduler, at site-1 with every node, serves every site (no schedule log). */
    public boolean oneScheduler() {
        return topology instanceof SitesTopology.OneScheduler;
    }

    /** site-1 .. site-S. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            names.add("site-" + i);
        }
        return List.copyOf(names);
    }

    /** The site (0-based) of node {@code index} (0-based): the first {@code replicasPerSite} nodes are site-1's. */
    public int siteOfNode(int index) {
        return index / replicasPerSite;
    }

    /**
     * The site (0-based) whose client terminal {@code terminal} (0-based) calls through. The terminal's home warehouse
     * is {@code terminal mod warehouses + 1} (TerminalEmulator).
     */
    public int siteOfTerminal(int terminal, int warehouses) {
        return partitioned ? (terminal % warehouses) % count : terminal % count;
    }

    /** What result.json and the summary say of the warehouses' placement. */
    public String warehousesPerSite() {
        return partitioned ? "partitioned" : "shared";
    }
}
