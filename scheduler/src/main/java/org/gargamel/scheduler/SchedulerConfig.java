package org.gargamel.scheduler;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.Map;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.ClusterSecuritySettings;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.scheduler.sites.SiteSettings;

/**
 * The scheduler's configuration file (docs/scheduler.md):
 * <pre>
 * control:                       # the control group (clients, scheduler, nodes)
 *   bind: 127.0.0.1:7800
 *   initialHosts: [127.0.0.1:7800, 127.0.0.1:7810, 127.0.0.1:7820]
 * rules: my-rules.yaml           # required: the application's classifier rules (docs/classifier.md)
 * mode: gargamel                 # gargamel | round-robin | centralized
 * isolation: psi                 # psi | si
 * maxInFlight: 100000            # calls scheduled and not yet applied everywhere; more are rejected
 * frontend:                      # optional: a PostgreSQL front end in this process (docs/frontend.md)
 *   listen: 127.0.0.1:5433
 * clusterSecurity: {secretFile: cluster.secret}   # optional: the groups' shared secret (docs/protocol.md)
 * site: {name: eu, sites: [eu, us], schedule: {...}}  # optional: one site of several ({@link SiteSettings},
 *                                                     # docs/multisite.md); mode gargamel and isolation psi only
 * </pre>
 * {@code frontend} is kept as written: the scheduler does not read it; the process that runs the scheduler
 * ({@code gargamel scheduler}) starts a front end from it.
 */
public record SchedulerConfig(
        GroupSettings control,
        Mode mode,
        Isolation isolation,
        String rules,
        int maxInFlight,
        Map<String, Object> frontend,
        ClusterSecuritySettings clusterSecurity,
        SiteSettings site) {
    public static final int DEFAULT_MAX_IN_FLIGHT = 100_000;

    @JsonCreator
    public SchedulerConfig(
            @JsonProperty("control") GroupSettings control,
            @JsonProperty("mode") Mode mode,
            @JsonProperty("isolation") Isolation isolation,
            @JsonProperty("rules") String rules,
            @JsonProperty("maxInFlight") Integer maxInFlight,
            @JsonProperty("frontend") Map<String, Object> frontend,
            @JsonProperty("clusterSecurity") ClusterSecuritySettings clusterSecurity,
            @JsonProperty("site") SiteSettings site) {
        this(
                control,
                mode == null ? Mode.GARGAMEL : mode,
                isolation == null ? Isolation.PSI : isolation,
                rules,
                maxInFlight == null ? DEFAULT_MAX_IN_FLIGHT : maxInFlight.intValue(),
                frontend,
                clusterSecurity,
                site);
    }

    /** A scheduler without a front end. */
    public SchedulerConfig(GroupSettings control, Mode mode, Isolation isolation, String rules, Integer maxInFlight) {
        this(control, mode, isolation, rules, maxInFlight, null, null, null);
    }

    public static SchedulerConfig read(Path file) {
        return ConfigFiles.readWithRules(
                file,
                SchedulerConfig.class,
                SchedulerConfig::rules,
                (config, rulesFile) -> config.withRules(rulesFile).besides(file),
                SchedulerConfig::validate);
    }

    /** A relative secret file read beside the configuration file {@code file}. */
    private SchedulerConfig besides(Path file) {
        return clusterSecurity == null
                ? this
                : new SchedulerConfig(
                        control, mode, isolation, rules, maxInFlight, frontend, clusterSecurity.besides(file), site);
    }

    /** The control group's channel settings, with the cluster's secret if configured. */
    public GroupConfig controlGroup() {
        return control.toGroupConfig("control").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    public SchedulerConfig withRules(String rulesFile) {
        return new SchedulerConfig(control, mode, isolation, rulesFile, maxInFlight, frontend, clusterSecurity, site);
    }

    /** The same scheduler serving one site of several ({@code settings}; null: single-site). */
    public SchedulerConfig withSite(SiteSettings settings) {
        return new SchedulerConfig(control, mode, isolation, rules, maxInFlight, frontend, clusterSecurity, settings);
    }

    /** The control group's cluster: the site's own one when this scheduler serves a site. */
    public String controlCluster() {
        return org.gargamel.common.group.Channels.controlCluster(site == null ? null : site.name());
    }

    /** The schedule log's channel settings (site schedulers only), with the cluster's secret if configured. */
    public GroupConfig scheduleGroup() {
        return site.schedule()
                .toGroupConfig("site.schedule")
                .withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    /** Checks every key once, so a running scheduler never meets a bad setting. */
    public SchedulerConfig validate() {
        if (control == null) {
            throw new ConfigException("key 'control' is required (the control group's bind address and initial hosts)");
        }
        if ("in-memory".equals(control.transport())) {
            if (control.bind() != null) {
                throw new ConfigException("key 'control.bind' contradicts 'control.transport: in-memory' (remove one)");
            }
            if (!control.initialHosts().isEmpty()) {
                throw new ConfigException(
                        "key 'control.initialHosts' contradicts 'control.transport: in-memory' (remove one)");
            }
        }
        controlGroup();
        if (site != null) {
            site.validate();
            if (mode != Mode.GARGAMEL || isolation != Isolation.PSI) {
                throw new ConfigException("key 'site' needs mode gargamel and isolation psi (a call commits only once"
                        + " the schedule log placed it; got mode " + mode + ", isolation " + isolation + ")");
            }
            if (!site.schedule().transport().equals(control.transport())) {
                throw new ConfigException(
                        "keys 'control.transport' and 'site.schedule.transport' contradict each other ("
                                + control.transport() + " and "
                                + site.schedule().transport() + ")");
            }
        }
        if (maxInFlight < 1) {
            throw new ConfigException("key 'maxInFlight' must be at least 1, got " + maxInFlight);
        }
        Map<String, GroupSettings> groups = new java.util.LinkedHashMap<>();
        groups.put("control", control);
        if (site != null) {
            groups.put("site.schedule", site.schedule());
        }
        ClusterSecuritySettings.requireWhereExposed(clusterSecurity, groups);
        loadRules();
        return this;
    }

    /** Without the front end's settings, which may hold passwords. */
    @Override
    public String toString() {
        return "SchedulerConfig[control=" + control + ", mode=" + mode + ", isolation=" + isolation + ", rules="
                + rules + ", maxInFlight=" + maxInFlight + ", frontend=" + (frontend == null ? "none" : "configured")
                + ", clusterSecurity=" + clusterSecurity + ", site=" + site + "]";
    }

    /** The classifier rules named by key {@code rules}, loaded and validated; errors name the key. */
    public ClassifierRules loadRules() {
        return ClassifierRules.loadConfigured(rules);
    }
}
