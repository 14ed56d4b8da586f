package org.gargamel.launcher.cluster;

import java.util.List;

/**
 * Which JIT compilers the scheduler and node JVMs of a {@link LocalGargamelCluster} use (the front end always has
 * both: {@link ChildProcesses}). A run of seconds wants {@link #QUICK_START}; a measurement of what a long-lived server
 * costs wants {@link #SERVER} ({@code bench costs}, issue 40). {@code GARGAMEL_CHILD_JAVA_OPTS} still comes after
 * these options, so it can override them (profiling, say).
 */
public enum ChildJit {
    /**
     * C1 only ({@code -XX:TieredStopAtLevel=1}): these JVMs live for one run on the same cores as PostgreSQL and each
     * other, and C2 compiling JGroups, pgjdbc and Jackson took most of their CPU for the first 30 s of a run; with C1
     * alone a 20 s run of one replica at 4 warehouses made 11,460 tpmC against 7,923 (docs/node.md). The default.
     */
    QUICK_START("c1-only", List.of("-XX:TieredStopAtLevel=1")),
    /**
     * The JVM's own tiered compilation, C1 then C2, as {@code scripts/gargamel node} and the Docker image's servers
     * run: what a long-lived server spends, once C2 has compiled its hot code (on 2 cores that takes minutes).
     */
    SERVER("server", List.of());

    /** Extra options for the scheduler and node JVMs (profiling, say), split on spaces, given after these. */
    public static final String OPTIONS_VARIABLE = "GARGAMEL_CHILD_JAVA_OPTS";

    private final String configName;
    // ImmutableEnumChecker is wrong here: the list is List.of's, which cannot be changed.
    @SuppressWarnings("ImmutableEnumChecker")
    private final List<String> jvmOptions;

    ChildJit(String configName, List<String> jvmOptions) {
        this.configName = configName;
        this.jvmOptions = jvmOptions;
    }

    /** How reports name it: {@code c1-only} or {@code server}. */
    public String configName() {
        return configName;
    }

    /** The JVM options that choose it (none: the JVM's default tiers). */
    public List<String> jvmOptions() {
        return jvmOptions;
    }
}
