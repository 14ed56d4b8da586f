package org.gargamel.launcher.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * What one process holds at a sample: the heap it retained after its latest garbage collection (-1 when not a JVM or
 * not read), its threads, open file descriptors and resident memory, from {@code /proc}.
 */
public record ProcessResources(long pid, long heapAfterGcBytes, int threads, int openFiles, long residentBytes) {
    /** {@code pid}'s figures, or empty if it is gone. */
    static Optional<ProcessResources> read(long pid, OptionalLong heapAfterGc) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            int threads = -1;
            long resident = -1;
            for (String line : Files.readAllLines(proc.resolve("status"))) {
                if (line.startsWith("Threads:")) {
                    threads =
                            Integer.parseInt(line.substring("Threads:".length()).trim());
                } else if (line.startsWith("VmRSS:")) {
                    resident = Long.parseLong(line.substring("VmRSS:".length())
                                    .replace("kB", "")
                                    .trim())
                            * 1024;
                }
            }
            int files;
            try (Stream<Path> descriptors = Files.list(proc.resolve("fd"))) {
                files = (int) descriptors.count();
            }
            return Optional.of(new ProcessResources(pid, heapAfterGc.orElse(-1), threads, files, resident));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // exited while read
        }
    }
}
