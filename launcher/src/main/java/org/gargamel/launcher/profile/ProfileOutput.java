package org.gargamel.launcher.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Draws profiles and breaks them down: {@code ROLE.svg} per role and {@code profile.json} in one directory. */
public final class ProfileOutput {
    /** How many frames each list of profile.json holds. */
    static final int TOP_FRAMES = 15;

    private ProfileOutput() {}

    /**
     * Writes each role's flame graph and profile.json to {@code directory}; {@code processes} says which process and
     * event a role's profile came from when this run profiled it (empty for existing files). The breakdowns by role.
     */
    public static Map<String, StageBreakdown> write(
            Map<String, CollapsedStacks> profiles, Map<String, ProfileResult.Written> processes, Path directory)
            throws IOException {
        Files.createDirectories(directory);
        Map<String, StageBreakdown> breakdowns = new LinkedHashMap<>();
        for (Map.Entry<String, CollapsedStacks> entry : profiles.entrySet()) {
            String role = entry.getKey();
            ProfileResult.Written process = processes.get(role);
            String title = process == null
                    ? role + ": CPU samples"
                    : role + ": CPU samples of pid " + process.pid() + " (async-profiler, event=" + process.event()
                            + ", interval=" + ProcessProfiler.INTERVAL + ")";
            Files.writeString(
                    directory.resolve(role + ".svg"),
                    FlameGraph.render(entry.getValue(), title),
                    StandardCharsets.UTF_8);
            breakdowns.put(role, StageBreakdown.of(entry.getValue(), TOP_FRAMES));
        }
        ProfileJson.write(directory.resolve("profile.json"), breakdowns, processes);
        return breakdowns;
    }
}
