package org.gargamel.launcher.profile;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The breakdowns of several processes as a text table, a column per role, then each role's top frames. */
public final class StageTable {
    /** How many frames of each list the table shows (profile.json has more). */
    static final int FRAMES_SHOWN = 5;

    private StageTable() {}

    public static String format(Map<String, StageBreakdown> byRole) {
        int first = "kernel (leaf frame)".length();
        for (String stage : Stages.names()) {
            first = Math.max(first, stage.length());
        }
        StringBuilder table = new StringBuilder();
        row(table, first, "share of CPU samples", byRole.keySet().stream().toList());
        row(
                table,
                first,
                "samples",
                byRole.values().stream()
                        .map(breakdown -> String.format(Locale.ROOT, "%,d", breakdown.samples()))
                        .toList());
        for (String stage : Stages.names()) {
            row(
                    table,
                    first,
                    stage,
                    byRole.values().stream()
                            .map(breakdown -> percent(breakdown.stages().get(stage)))
                            .toList());
        }
        row(
                table,
                first,
                "kernel (leaf frame)",
                byRole.values().stream()
                        .map(breakdown -> percent(breakdown.kernelShare()))
                        .toList());
        byRole.forEach((role, breakdown) -> {
            frames(table, role + ": most samples ended in", breakdown.topSelfFrames());
            if (!breakdown.kernelNearestJava().isEmpty()) {
                frames(table, role + ": kernel samples by nearest Java frame", breakdown.kernelNearestJava());
            }
        });
        return table.toString();
    }

    private static void row(StringBuilder table, int first, String label, List<String> cells) {
        table.append(String.format(Locale.ROOT, "%-" + first + "s", label));
        for (String cell : cells) {
            table.append(String.format(Locale.ROOT, "  %12s", cell));
        }
        table.append('\n');
    }

    private static void frames(StringBuilder table, String heading, List<StageBreakdown.FrameShare> frames) {
        table.append(heading).append(":\n");
        for (StageBreakdown.FrameShare frame : frames.subList(0, Math.min(FRAMES_SHOWN, frames.size()))) {
            String name = frame.frame().name();
            String kind = name.equals(StageBreakdown.NO_JAVA_FRAME)
                    ? ""
                    : " [" + frame.frame().kind().label() + "]";
            table.append(String.format(Locale.ROOT, "  %6s  %s%s%n", percent(frame.share()), name, kind));
        }
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }
}
