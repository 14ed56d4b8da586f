package org.gargamel.scheduler.sites;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.group.SiteDelay;

/**
 * The section "site:" of a scheduler's configuration (docs/multisite.md): this scheduler serves one site of
 * several, and agrees with the other sites' schedulers on one order of all update calls through the schedule log.
 * <pre>
 * site:
 *   name: eu                      # this site; its nodes and clients name it too
 *   sites: [eu, us, ap]           # every site, the same list at every site: the schedule log's members
 *   schedule:                     # the schedule log's group, among the sites' schedulers
 *     bind: 127.0.0.1:7900
 *     initialHosts: [127.0.0.1:7900, 127.0.0.1:7910, 127.0.0.1:7920]
 *   agreement: optimistic         # optimistic (run at once, commit once placed) | pessimistic (run once placed)
 *                                 # | owned (site-owned conflict classes: a call on its site's rows alone never
 *                                 #   waits for the schedule log; docs/multisite.md)
 *                                 # | abort-free (every site places every call as it comes; dependency cycles
 *                                 #   ordered deterministically: a collision waits, never kills; Janus)
 *   owners: {eu: [1, 3], us: [2]} # agreement owned: the values of a written key's first part each site owns
 *                                 # (TPC-C: warehouse ids); a key with another value, or its first part unknown,
 *                                 # may be any site's row
 *   delayMillis: {us: 50, ap: 100}   # optional, tests and demos on one machine: this site's one-way delay to each
 *                                    # other site, applied to what this scheduler receives from it
 *   logDir: /var/lib/gargamel/eu-schedule   # optional: this site's copy of the schedule log (default: in memory)
 *   logFsync: true                # optional: force each append to disk before it counts (default true)
 * </pre>
 *
 * <p>Raft assumes a member never forgets its log, its term and its vote. A scheduler started again on {@code logDir}
 * comes back as the member it was; one that succeeds another without a copy of the log joins as a new member and
 * replaces its predecessor (three sites or more), or comes back empty as the site's member, which is safe with two
 * sites (docs/multisite.md, A site scheduler's failover).
 */
public record SiteSettings(
        String name,
        List<String> sites,
        GroupSettings schedule,
        AgreementMode agreement,
        Map<String, Integer> delayMillis,
        Path logDir,
        boolean logFsync,
        Map<String, List<Long>> owners) {

    @JsonCreator
    public SiteSettings(
            @JsonProperty("name") String name,
            @JsonProperty("sites") List<String> sites,
            @JsonProperty("schedule") GroupSettings schedule,
            @JsonProperty("agreement") String agreement,
            @JsonProperty("delayMillis") Map<String, Integer> delayMillis,
            @JsonProperty("logDir") String logDir,
            @JsonProperty("logFsync") Boolean logFsync,
            @JsonProperty("owners") Map<String, List<Long>> owners) {
        this(
                name,
                sites == null ? null : List.copyOf(sites),
                schedule,
                parse(agreement),
                copy(delayMillis),
                logDir == null ? null : directory(logDir),
                logFsync == null || logFsync,
                owners == null ? Map.of() : copyOwners(owners));
    }

    /** A site whose schedule log is in memory (tests). */
    public SiteSettings(
            String name,
            List<String> sites,
            GroupSettings schedule,
            String agreement,
            Map<String, Integer> delayMillis) {
        this(name, sites, schedule, agreement, delayMillis, null, null, null);
    }

    /** The same site with site-owned conflict classes: {@code owners} says which values of a key's first part each site owns. */
    public SiteSettings owning(Map<String, List<Long>> owners) {
        return new SiteSettings(
                name, sites, schedule, AgreementMode.OWNED, delayMillis, logDir, logFsync, copyOwners(owners));
    }

    private static Map<String, List<Long>> copyOwners(Map<String, List<Long>> owners) {
        Map<String, List<Long>> copy = new java.util.LinkedHashMap<>();
        owners.forEach((site, values) -> copy.put(site, values == null ? null : List.copyOf(values)));
        return java.util.Collections.unmodifiableMap(copy);
    }

    private static Path directory(String logDir) {
        if (logDir.isBlank()) {
            throw new ConfigException("key 'site.logDir' must name a directory, got an empty string");
        }
        return Path.of(logDir);
    }

    private static AgreementMode parse(String agreement) {
        if (agreement == null) {
            return AgreementMode.OPTIMISTIC;
        }
        return switch (agreement) {
            case "optimistic" -> AgreementMode.OPTIMISTIC;
            case "pessimistic" -> AgreementMode.PESSIMISTIC;
            case "owned" -> AgreementMode.OWNED;
            case "abort-free" -> AgreementMode.ABORT_FREE;
            default ->
                throw new ConfigException("key 'site.agreement' must be optimistic, pessimistic, owned or abort-free,"
                        + " got '" + agreement + "'");
        };
    }

    private static Map<String, Integer> copy(Map<String, Integer> delays) {
        return delays == null ? Map.of() : Map.copyOf(delays);
    }

    /**
     * This site's number, its place among the sites in name order (the same at every site's scheduler): it goes into
     * the transaction ids the site hands out ({@code TransactionIds.firstOf(epoch, site)}).
     */
    public int number() {
        return new java.util.TreeSet<>(sites).headSet(name).size();
    }

    /** Checks every key, naming it in the error. */
    public SiteSettings validate() {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,32}")) {
            throw new ConfigException("key 'site.name' is required: 1 to 32 letters, digits, '.', '_' or '-' (got "
                    + (name == null ? "nothing" : "'" + name + "'") + ")");
        }
        if (sites == null || sites.size() < 2) {
            throw new ConfigException("key 'site.sites' must name every site, at least two (got "
                    + (sites == null ? "nothing" : sites) + ")");
        }
        if (sites.stream().distinct().count() != sites.size()) {
            throw new ConfigException("key 'site.sites' " + sites + " names a site twice");
        }
        if (!sites.contains(name)) {
            throw new ConfigException("key 'site.sites' " + sites + " does not name this site, '" + name + "'");
        }
        if (sites.size() > org.gargamel.common.wire.TransactionIds.MAX_SITES) {
            throw new ConfigException("key 'site.sites' names " + sites.size() + " sites, more than the "
                    + org.gargamel.common.wire.TransactionIds.MAX_SITES + " transaction ids have room for");
        }
        if (schedule == null) {
            throw new ConfigException(
                    "key 'site.schedule' is required (the schedule log's group among the sites'" + " schedulers)");
        }
        schedule.toGroupConfig("site.schedule");
        for (Map.Entry<String, Integer> delay : delayMillis.entrySet()) {
            if (!sites.contains(delay.getKey()) || delay.getKey().equals(name)) {
                throw new ConfigException(
                        "key 'site.delayMillis': '" + delay.getKey() + "' is not another site (" + sites + ")");
            }
            if (delay.getValue() == null || delay.getValue() < 0 || delay.getValue() > 60_000) {
                throw new ConfigException("key 'site.delayMillis." + delay.getKey()
                        + "' must be between 0 and 60000 milliseconds, got " + delay.getValue());
            }
        }
        validateOwners();
        return this;
    }

    private void validateOwners() {
        if (agreement != AgreementMode.OWNED) {
            if (!owners.isEmpty()) {
                throw new ConfigException("key 'site.owners' is used only with 'site.agreement: owned' (got "
                        + agreement.name().toLowerCase(java.util.Locale.ROOT) + ")");
            }
            return;
        }
        if (owners.isEmpty()) {
            throw new ConfigException("key 'site.owners' is required with 'site.agreement: owned': the values of a"
                    + " written key's first part each site owns, e.g. {eu: [1], us: [2]}");
        }
        Map<Long, String> ownerOf = new HashMap<>();
        for (Map.Entry<String, List<Long>> site : owners.entrySet()) {
            if (!sites.contains(site.getKey())) {
                throw new ConfigException("key 'site.owners': '" + site.getKey() + "' is not a site (" + sites + ")");
            }
            if (site.getValue() == null) {
                throw new ConfigException("key 'site.owners." + site.getKey() + "' must list values, got nothing");
            }
            for (Long value : site.getValue()) {
                if (value == null) {
                    throw new ConfigException("key 'site.owners." + site.getKey() + "' lists an empty value");
                }
                String before = ownerOf.put(value, site.getKey());
                if (before != null) {
                    throw new ConfigException("key 'site.owners': value " + value + " is owned by both '" + before
                            + "' and '" + site.getKey() + "'");
                }
            }
        }
    }

    /**
     * With site-owned classes: the sites whose rows a written key may name. Its owner's alone when its first part is
     * known and listed in {@code owners}; every site otherwise (a wildcard, or a value nobody owns), so such a call
     * goes through the schedule log and every site orders it.
     */
    public OwnedAgreement.Ownership ownership() {
        Map<Long, Set<String>> ownerOf = new HashMap<>();
        owners.forEach((site, values) -> values.forEach(value -> ownerOf.put(value, Set.of(site))));
        Set<String> everySite = Set.copyOf(sites);
        return key -> key.knownParts() == 0 ? everySite : ownerOf.getOrDefault(key.parts()[0], everySite);
    }

    /** The schedule log's consensus settings: the sites are its members, this site's name its Raft id. */
    public RaftSettings raft() {
        return raft(name);
    }

    /**
     * The schedule log's consensus settings for Raft id {@code member}: this site's name (one of the configured
     * members), or a new member of it ({@link ScheduleLog#newMember}) that joins as a learner, starting from the
     * configured members (the log's membership entries tell it the current ones).
     */
    public RaftSettings raft(String member) {
        return new RaftSettings(member, sites, logDir, logFsync, !sites.contains(member));
    }

    /** What this scheduler's schedule log channel delays: each other site's messages by this site's delay to it. */
    public SiteDelay.Links links() {
        Map<String, String> siteOf = new HashMap<>();
        for (String site : sites) {
            siteOf.put(site, site); // a scheduler's member name in the schedule log is its site's name
        }
        Map<String, Duration> between = new HashMap<>();
        delayMillis.forEach(
                (other, millis) -> between.put(SiteDelay.Links.key(name, other), Duration.ofMillis(millis)));
        return new SiteDelay.Links(siteOf, between);
    }
}
