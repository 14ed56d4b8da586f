package org.gargamel.launcher.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Starts async-profiler in running JVMs: CPU samples every millisecond of CPU time ({@code event=cpu}, perf_events),
 * or, where async-profiler refuses that (perf_events not allowed), of the process's interval timer
 * ({@code event=itimer}). The session's notes say so, and repeat any warning async-profiler logged when it started.
 * {@link ProfileSession#stop()} writes each process's collapsed stacks.
 */
public final class ProcessProfiler {
    /** A role names its files in the output directory. */
    private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    static final String INTERVAL = "1ms";

    private ProcessProfiler() {}

    /**
     * Starts profiling every process of {@code pidByRole} (a role such as {@code node-1}, and its pid), all or none:
     * if one is not a JVM or cannot be started, those already started are stopped and the error names the one that
     * failed.
     */
    public static ProfileSession start(Map<String, Long> pidByRole, Path outDir) throws ProfilerException {
        pidByRole.keySet().forEach(ProcessProfiler::checkRole);
        Map<Long, String> roleByPid = new HashMap<>();
        pidByRole.forEach((role, pid) -> {
            String other = roleByPid.putIfAbsent(pid, role);
            if (other != null) {
                throw new IllegalArgumentException("pid " + pid + " is given twice, as " + other + " and " + role);
            }
        });
        for (Map.Entry<String, Long> entry : pidByRole.entrySet()) {
            if (!JvmAgent.isAttachableJvm(entry.getValue())) {
                throw new ProfilerException(entry.getKey() + " (pid " + entry.getValue() + ") is not a running JVM of"
                        + " this user that the JDK can attach to ('jps' does not list it; a JVM started with"
                        + " -XX:-UsePerfData or -XX:+DisableAttachMechanism cannot be profiled this way)");
            }
        }
        Path library = AsyncProfilerLibrary.path();
        Path directory = outDir.toAbsolutePath().normalize();
        if (directory.toString().contains(",")) {
            // async-profiler's options are separated by commas, file names included
            throw new ProfilerException("the output directory's path must not contain ',': " + directory);
        }
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new ProfilerException("cannot create " + directory + ": " + e, e);
        }
        List<ProfileTarget> started = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        try {
            for (Map.Entry<String, Long> entry : pidByRole.entrySet()) {
                started.add(
                        start(library, ProfileTarget.in(directory, entry.getKey(), entry.getValue(), "cpu"), notes));
            }
        } catch (ProfilerException e) {
            new ProfileSession(library, started, notes).stop();
            throw e;
        }
        return new ProfileSession(library, started, notes);
    }

    private static ProfileTarget start(Path library, ProfileTarget target, List<String> notes)
            throws ProfilerException {
        try {
            Files.deleteIfExists(target.log()); // a log of an earlier run must not speak for this one
        } catch (IOException e) {
            throw new ProfilerException("cannot remove the old " + target.log() + ": " + e, e);
        }
        if (JvmAgent.load(target.pid(), library, startOptions(target))) {
            // e.g. kernel symbols hidden: the profile lacks kernel frames, which the user must know to read it
            target.messages().forEach(message -> notes.add(target.name() + ": async-profiler: " + message));
            return target;
        }
        String cpuFailure = target.lastMessage();
        ProfileTarget fallback = target.sampling("itimer");
        if (JvmAgent.load(fallback.pid(), library, startOptions(fallback))) {
            notes.add(target.name() + ": event=cpu failed (" + cpuFailure + "); sampled with event=itimer instead");
            return fallback;
        }
        throw new ProfilerException(target.name() + ": async-profiler did not start with event=cpu (" + cpuFailure
                + ") nor with event=itimer (" + fallback.lastMessage() + ")");
    }

    private static String startOptions(ProfileTarget target) {
        return "start,event=" + target.event() + ",interval=" + INTERVAL + ",log=" + target.log();
    }

    private static void checkRole(String role) {
        if (!ROLE.matcher(role).matches()) {
            throw new IllegalArgumentException(
                    "a role is a file name of letters, digits, '.', '_' and '-', such as node-1; got '" + role + "'");
        }
    }
}
