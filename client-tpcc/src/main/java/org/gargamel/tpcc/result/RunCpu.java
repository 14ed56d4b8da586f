package org.gargamel.tpcc.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a run's CPU went, over its measurement interval ({@code cpu} in result.json): the machine's cores and how many
 * of them were busy on average, and CPU
 * milliseconds per finished call by role. {@code host} is the whole machine (every process on it); {@code client} the
 * terminals' process; {@code scheduler}, {@code nodes} and {@code frontend} the cluster's processes (all of them
 * summed); {@code postgres} the replicas' servers, every process of each (backends and background work such as the WAL
 * writer and autovacuum); {@code other} what the host spent beyond these roles. A role the run could not measure (an
 * external server, a remote cluster) is absent, and its share is then in {@code other}.
 *
 * <p>Of the Java roles (client, scheduler, nodes, front end), {@code jitMsPerCall} is what their JIT compiler threads
 * spent, a part of {@code msPerCall}, and {@code msPerCallLessJit} the rest: what the role spends once its code is
 * compiled; {@code contextSwitchesPerCall} how often their threads gave up a core per call (each hand-off of a message
 * between threads costs one or two). All three are empty where the run could not read threads.
 */
@JsonPropertyOrder({
    "seconds",
    "hostCores",
    "hostBusyCores",
    "calls",
    "msPerCall",
    "jitMsPerCall",
    "msPerCallLessJit",
    "contextSwitchesPerCall"
})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record RunCpu(
        double seconds,
        int hostCores,
        double hostBusyCores,
        long calls,
        Map<String, Double> msPerCall,
        Map<String, Double> jitMsPerCall,
        Map<String, Double> msPerCallLessJit,
        Map<String, Double> contextSwitchesPerCall) {
    public static final String HOST = "host";
    public static final String OTHER = "other";

    /**
     * From the CPU seconds each role spent over {@code seconds} of wall time, the host's included under {@link #HOST},
     * and the calls finished meanwhile.
     */
    public static RunCpu of(double seconds, Map<String, Double> cpuSecondsByRole, long calls) {
        return of(seconds, cpuSecondsByRole, Map.of(), calls);
    }

    /**
     * As {@link #of(double, Map, long)}; {@code jitSecondsByRole}: of the Java roles, the CPU seconds their JIT
     * compiler threads spent (a part of the role's in {@code cpuSecondsByRole}).
     */
    public static RunCpu of(
            double seconds, Map<String, Double> cpuSecondsByRole, Map<String, Double> jitSecondsByRole, long calls) {
        return of(seconds, cpuSecondsByRole, jitSecondsByRole, Map.of(), calls);
    }

    /**
     * As {@link #of(double, Map, Map, long)}; {@code switchesByRole}: of the Java roles, their threads' context switches
     * over the interval.
     */
    public static RunCpu of(
            double seconds,
            Map<String, Double> cpuSecondsByRole,
            Map<String, Double> jitSecondsByRole,
            Map<String, Long> switchesByRole,
            long calls) {
        double host = cpuSecondsByRole.getOrDefault(HOST, 0.0);
        Map<String, Double> perCall = new LinkedHashMap<>();
        double attributed = 0;
        for (Map.Entry<String, Double> role : cpuSecondsByRole.entrySet()) {
            perCall.put(role.getKey(), milliseconds(role.getValue(), calls));
            if (!role.getKey().equals(HOST)) {
                attributed += role.getValue();
            }
        }
        perCall.put(OTHER, milliseconds(Math.max(0, host - attributed), calls));
        Map<String, Double> jitPerCall = new LinkedHashMap<>();
        Map<String, Double> lessJitPerCall = new LinkedHashMap<>();
        jitSecondsByRole.forEach((role, jit) -> {
            double total = cpuSecondsByRole.getOrDefault(role, 0.0);
            // Read a moment apart from the role's own ticks: never more than the role's whole.
            double compiling = Math.min(jit, total);
            jitPerCall.put(role, milliseconds(compiling, calls));
            lessJitPerCall.put(role, milliseconds(total - compiling, calls));
        });
        Map<String, Double> switchesPerCall = new LinkedHashMap<>();
        switchesByRole.forEach(
                (role, switches) -> switchesPerCall.put(role, calls == 0 ? 0 : round((double) switches / calls)));
        return new RunCpu(
                round(seconds),
                Runtime.getRuntime().availableProcessors(),
                round(seconds == 0 ? 0 : host / seconds),
                calls,
                perCall,
                jitPerCall,
                lessJitPerCall,
                switchesPerCall);
    }

    private static double milliseconds(double cpuSeconds, long calls) {
        return calls == 0 ? 0 : round(1000 * cpuSeconds / calls);
    }

    private static double round(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
