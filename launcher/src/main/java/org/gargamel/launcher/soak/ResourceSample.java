package org.gargamel.launcher.soak;

import java.util.Map;

/**
 * One sample of a long run: {@code seconds} since the run started, each process's resources by name ({@code client},
 * {@code scheduler}, {@code node-1}...), the bytes of each node's data directory (its write-set log and snapshots),
 * and the calls answered per second since the previous sample.
 */
public record ResourceSample(
        double seconds,
        Map<String, ProcessResources> processes,
        Map<String, Long> dataDirectoryBytes,
        double callsPerSecond) {}
