package org.gargamel.launcher.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** One line saying where a benchmark ran: CPU model, cores, memory, OS, Java. Figures are meaningless without it. */
public final class MachineDescription {
    private MachineDescription() {}

    public static String describe() {
        String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name").orElse(System.getProperty("os.arch"));
        String memory = firstValue(Path.of("/proc/meminfo"), "MemTotal")
                .map(text -> String.format(
                        Locale.ROOT, "%.0f GiB", Long.parseLong(text.replaceAll("[^0-9]", "")) / 1048576.0))
                .orElse("unknown memory");
        return String.format(
                Locale.ROOT,
                "%d vCPU %s, %s, %s %s, Java %s",
                Runtime.getRuntime().availableProcessors(),
                cpu.trim(),
                memory,
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("java.version"));
    }

    private static java.util.Optional<String> firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String line : lines) {
                if (line.startsWith(key)) {
                    int colon = line.indexOf(':');
                    return java.util.Optional.of(line.substring(colon + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: fall back below.
        }
        return java.util.Optional.empty();
    }
}
