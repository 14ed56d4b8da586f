package org.gargamel.scheduler;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Isolation;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.scheduler.core.SchedulingMode;

/**
 * The scheduler's configuration file (docs/scheduler.md):
 * <pre>
 * control:                       # the control group (clients, scheduler, nodes)
 *   bind: 127.0.0.1:7800
 *   initialHosts: [127.0.0.1:7800, 127.0.0.1:7810, 127.0.0.1:7820]
 * mode: gargamel                 # gargamel | round-robin | centralized
 * isolation: psi                 # psi | si
 * rules: my-rules.yaml           # optional; the TPC-C rules by default
 * maxInFlight: 100000            # calls scheduled and not yet applied everywhere; more are rejected
 * </pre>
 */
public record SchedulerConfig(GroupSettings control, String mode, String isolation, String rules, int maxInFlight) {
    public static final int DEFAULT_MAX_IN_FLIGHT = 100_000;

    @JsonCreator
    public SchedulerConfig(@JsonProperty("control") GroupSettings control, @JsonProperty("mode") String mode,
            @JsonProperty("isolation") String isolation, @JsonProperty("rules") String rules,
            @JsonProperty("maxInFlight") Integer maxInFlight) {
        this(control, mode == null ? "gargamel" : mode, isolation == null ? "psi" : isolation, rules,
                maxInFlight == null ? DEFAULT_MAX_IN_FLIGHT : maxInFlight.intValue());
    }

    public static SchedulerConfig read(Path file) {
        SchedulerConfig config = ConfigFiles.read(file, SchedulerConfig.class);
        try {
            config.validate();
        } catch (ConfigException e) {
            throw new ConfigException(file + ": " + e.getMessage(), e);
        }
        return config;
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
                throw new ConfigException("key 'control.initialHosts' contradicts 'control.transport: in-memory' (remove one)");
            }
        }
        control.toGroupConfig("control");
        schedulingMode();
        isolationLevel();
        if (maxInFlight < 1) {
            throw new ConfigException("key 'maxInFlight' must be at least 1, got " + maxInFlight);
        }
        if (rules != null && !Files.isRegularFile(Path.of(rules))) {
            throw new ConfigException("key 'rules': file " + rules + " does not exist");
        }
        if (rules != null) {
            try {
                loadRules();
            } catch (RuntimeException e) {
                throw new ConfigException("key 'rules': " + e.getMessage(), e);
            }
        }
        return this;
    }

    public SchedulingMode schedulingMode() {
        try {
            return SchedulingMode.parse(mode);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("key 'mode': " + e.getMessage());
        }
    }

    public Isolation isolationLevel() {
        return switch (isolation) {
            case "psi" -> Isolation.PSI;
            case "si" -> Isolation.SI;
            default -> throw new ConfigException("key 'isolation': '" + isolation + "' is not psi or si");
        };
    }

    public ClassifierRules loadRules() {
        return rules == null ? ClassifierRules.tpcc() : ClassifierRules.load(Path.of(rules));
    }
}
