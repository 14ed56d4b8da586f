package org.gargamel.node;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.SiteDelay;

/**
 * The site this node serves, of several (docs/multisite.md; keys {@code site}, {@code siteOfReplicas},
 * {@code siteDelayMillis}, {@code writeSetLog}, flat in the file): the site's name (null: a single-site cluster,
 * {@link #NONE}), every replica's site, this site's one-way delay from each other site (tests and demos on one
 * machine), and whether the write-set log is the site's own ({@code writeSetLog: site}) rather than one for all
 * replicas. A section of {@link NodeConfig}, as {@code site:} is of the scheduler's configuration.
 */
public record SiteSettings(
        String name, Map<String, String> siteOfReplicas, Map<String, Integer> delayMillis, boolean logPerSite) {
    /** A single-site cluster: no site key at all. */
    public static final SiteSettings NONE = new SiteSettings(null, Map.of(), Map.of(), false);

    public SiteSettings {
        siteOfReplicas = Map.copyOf(siteOfReplicas);
        delayMillis = Map.copyOf(delayMillis);
    }

    /**
     * The keys agree with each other, with the replicas and with the node's mode (the messages name the file's keys).
     */
    void validate(String node, List<String> replicas, Mode mode, Isolation isolation) {
        if (name == null && (!siteOfReplicas.isEmpty() || !delayMillis.isEmpty())) {
            throw new ConfigException("keys 'siteOfReplicas' and 'siteDelayMillis' are for a node with key 'site'");
        }
        if (logPerSite && (name == null || siteOfReplicas.isEmpty())) {
            throw new ConfigException(
                    "key 'writeSetLog: site' needs keys 'site' and 'siteOfReplicas' (every replica's" + " site)");
        }
        if (name == null) {
            return;
        }
        if (!name.matches("[A-Za-z0-9_.-]{1,32}")) {
            throw new ConfigException(
                    "key 'site' must be 1 to 32 letters, digits, '.', '_' or '-' (got '" + name + "')");
        }
        if (!siteOfReplicas.isEmpty() && !siteOfReplicas.keySet().equals(new HashSet<>(replicas))) {
            throw new ConfigException("key 'siteOfReplicas' must give the site of every replica " + replicas
                    + " and no other, got " + siteOfReplicas.keySet());
        }
        if (!siteOfReplicas.isEmpty() && !name.equals(siteOfReplicas.get(node))) {
            throw new ConfigException("key 'siteOfReplicas' puts this node in site " + siteOfReplicas.get(node)
                    + ", key 'site' says " + name);
        }
        for (Map.Entry<String, Integer> delay : delayMillis.entrySet()) {
            if (delay.getKey().equals(name) || !siteOfReplicas.containsValue(delay.getKey())) {
                throw new ConfigException("key 'siteDelayMillis': '" + delay.getKey() + "' is not another site of"
                        + " 'siteOfReplicas' " + new TreeSet<>(siteOfReplicas.values()));
            }
            if (delay.getValue() == null || delay.getValue() < 0 || delay.getValue() > 60_000) {
                throw new ConfigException("key 'siteDelayMillis." + delay.getKey()
                        + "' must be between 0 and 60000 milliseconds, got " + delay.getValue());
            }
        }
        if (mode != Mode.GARGAMEL || isolation != Isolation.PSI) {
            throw new ConfigException("key 'site' needs mode gargamel and isolation psi (multi-site agreement "
                    + "commits a call only once the schedule log placed it; got mode " + mode + ", isolation "
                    + isolation + ")");
        }
    }

    /** The replicas of {@code aSite}, in the order of {@code replicas}. */
    public List<String> replicasOf(String aSite, List<String> replicas) {
        return replicas.stream()
                .filter(r -> aSite.equals(siteOfReplicas.get(r)))
                .toList();
    }

    /** The members of this node's write-set log: its site's replicas with a log per site, else all of them. */
    List<String> logMembers(List<String> replicas) {
        return logPerSite ? replicasOf(name, replicas) : replicas;
    }

    /** With a log per site: the other sites, whose logs this node follows (as a learner) and ships from. */
    public SortedSet<String> otherSites() {
        SortedSet<String> others = new TreeSet<>(siteOfReplicas.values());
        others.remove(name);
        return others;
    }

    /** What this node's write-set log channel delays ({@link SiteDelay}); none unless configured. */
    public SiteDelay.Links writeSetLinks() {
        if (name == null || delayMillis.isEmpty()) {
            return SiteDelay.Links.NONE;
        }
        Map<String, Duration> between = new HashMap<>();
        delayMillis.forEach(
                (other, millis) -> between.put(SiteDelay.Links.key(name, other), Duration.ofMillis(millis)));
        return new SiteDelay.Links(siteOfReplicas, between);
    }

    /** The control group's cluster: the site's own one when sites are configured. */
    public String controlCluster() {
        return Channels.controlCluster(name);
    }

    /** The write-set log's cluster: one for all replicas, or the site's own with a log per site. */
    public String writeSetCluster() {
        return writeSetCluster(logPerSite ? name : null);
    }

    /** The cluster of {@code aSite}'s write-set log (null: the one log of all replicas). */
    public static String writeSetCluster(String aSite) {
        return aSite == null ? Channels.WRITE_SET_CLUSTER : Channels.WRITE_SET_CLUSTER + "-" + aSite;
    }
}
