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
        ClusterSecuritySettings clusterSecurity) {
    public static final int DEFAULT_MAX_IN_FLIGHT = 100_000;

    @JsonCreator
    public SchedulerConfig(
            @JsonProperty("control") GroupSettings control,
            @JsonProperty("mode") Mode mode,
            @JsonProperty("isolation") Isolation isolation,
            @JsonProperty("rules") String rules,
            @JsonProperty("maxInFlight") Integer maxInFlight,
            @JsonProperty("frontend") Map<String, Object> frontend,
            @JsonProperty("clusterSecurity") ClusterSecuritySettings clusterSecurity) {
        this(
                control,
                mode == null ? Mode.GARGAMEL : mode,
                isolation == null ? Isolation.PSI : isolation,
                rules,
                maxInFlight == null ? DEFAULT_MAX_IN_FLIGHT : maxInFlight.intValue(),
                frontend,
                clusterSecurity);
    }

    /** A scheduler without a front end. */
    public SchedulerConfig(GroupSettings control, Mode mode, Isolation isolation, String rules, Integer maxInFlight) {
        this(control, mode, isolation, rules, maxInFlight, null, null);
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
                        control, mode, isolation, rules, maxInFlight, frontend, clusterSecurity.besides(file));
    }

    /** The control group's channel settings, with the cluster's secret if configured. */
    public GroupConfig controlGroup() {
        return control.toGroupConfig("control").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    public SchedulerConfig withRules(String rulesFile) {
        return new SchedulerConfig(control, mode, isolation, rulesFile, maxInFlight, frontend, clusterSecurity);
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
        if (maxInFlight < 1) {
            throw new ConfigException("key 'maxInFlight' must be at least 1, got " + maxInFlight);
        }
        loadRules();
        return this;
    }

    /** Without the front end's settings, which may hold passwords. */
    @Override
    public String toString() {
        return "SchedulerConfig[control=" + control + ", mode=" + mode + ", isolation=" + isolation + ", rules="
                + rules + ", maxInFlight=" + maxInFlight + ", frontend=" + (frontend == null ? "none" : "configured")
                + ", clusterSecurity=" + clusterSecurity + "]";
    }

    /** The classifier rules named by key {@code rules}, loaded and validated; errors name the key. */
    public ClassifierRules loadRules() {
        return ClassifierRules.loadConfigured(rules);
    }
}
