package org.gargamel.scheduler.sites;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
        boolean logFsync) {

    @JsonCreator
    public SiteSettings(
            @JsonProperty("name") String name,
            @JsonProperty("sites") List<String> sites,
            @JsonProperty("schedule") GroupSettings schedule,
            @JsonProperty("agreement") String agreement,
            @JsonProperty("delayMillis") Map<String, Integer> delayMillis,
            @JsonProperty("logDir") String logDir,
            @JsonProperty("logFsync") Boolean logFsync) {
        this(
                name,
                sites == null ? null : List.copyOf(sites),
                schedule,
                parse(agreement),
                copy(delayMillis),
                logDir == null ? null : directory(logDir),
                logFsync == null || logFsync);
    }

    /** A site whose schedule log is in memory (tests). */
    public SiteSettings(
            String name,
            List<String> sites,
            GroupSettings schedule,
            String agreement,
            Map<String, Integer> delayMillis) {
        this(name, sites, schedule, agreement, delayMillis, null, null);
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
            default ->
                throw new ConfigException(
                        "key 'site.agreement' must be optimistic or pessimistic, got '" + agreement + "'");
        };
    }

    private static Map<String, Integer> copy(Map<String, Integer> delays) {
        return delays == null ? Map.of() : Map.copyOf(delays);
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
        return this;
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
