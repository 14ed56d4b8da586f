package org.gargamel.launcher.profile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code profile.json}: per role, the process profiled (pid, event) when it was profiled by this run, its samples,
 * each stage's share, the share of samples with a kernel leaf frame, the top self frames and the Java frames nearest
 * the kernel's samples. Shares are fractions of the role's samples (0 to 1).
 */
public final class ProfileJson {
    private ProfileJson() {}

    public static void write(
            Path file, Map<String, StageBreakdown> byRole, Map<String, ProfileResult.Written> processes)
            throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        byRole.forEach((role, breakdown) -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            ProfileResult.Written process = processes.get(role);
            if (process != null) {
                entry.put("pid", process.pid());
                entry.put("event", process.event());
                entry.put("interval", ProcessProfiler.INTERVAL);
            }
            entry.put("samples", breakdown.samples());
            Map<String, Double> stages = new LinkedHashMap<>();
            breakdown.stages().forEach((stage, share) -> stages.put(stage, round(share)));
            entry.put("stages", stages);
            entry.put("kernelShare", round(breakdown.kernelShare()));
            entry.put("topSelfFrames", frames(breakdown.topSelfFrames()));
            entry.put("kernelNearestJavaFrames", frames(breakdown.kernelNearestJava()));
            json.put(role, entry);
        });
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
    }

    private static List<Map<String, Object>> frames(List<StageBreakdown.FrameShare> frames) {
        return frames.stream()
                .map(frame -> {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("frame", frame.frame().name());
                    entry.put("kind", frame.frame().kind().label());
                    entry.put("samples", frame.samples());
                    entry.put("share", round(frame.share()));
                    return entry;
                })
                .toList();
    }

    private static double round(double share) {
        return Math.round(share * 100_000) / 100_000.0;
    }
}
