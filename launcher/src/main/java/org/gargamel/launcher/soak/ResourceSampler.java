package org.gargamel.launcher.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Samples, every {@code every}, the resources each process of a local cluster holds ({@link ProcessResources}: heap
 * retained after a full collection, threads, open files, resident memory), the size of each node's data directory, and the run's
 * throughput, on a daemon thread of its own, for the length of a long run (issue 43: an hour of faults must leave
 * every process's retained heap flat). Processes are looked up by name at each sample, so a process killed and started
 * again is followed under its new pid.
 */
public final class ResourceSampler implements AutoCloseable {
    private final Supplier<Map<String, Long>> processes;
    private final Map<String, Path> dataDirectories;
    private final LongSupplier callsAnswered;
    private final Duration every;
    private final List<ResourceSample> samples = new CopyOnWriteArrayList<>();
    private final HeapProbe heap = new HeapProbe();
    private final Thread thread;
    private final long startNanos = System.nanoTime();
    private long callsBefore;
    private long nanosBefore = startNanos;
    private volatile boolean running = true;

    /**
     * @param processes       the processes to sample, by name, read at each sample (the launcher's own as "client")
     * @param dataDirectories each node's data directory, by node name
     * @param callsAnswered   calls answered so far (the run's counter)
     */
    public ResourceSampler(
            Supplier<Map<String, Long>> processes,
            Map<String, Path> dataDirectories,
            LongSupplier callsAnswered,
            Duration every) {
        if (every.isZero() || every.isNegative()) {
            throw new IllegalArgumentException("the sampling interval must be positive, got " + every);
        }
        this.processes = processes;
        this.dataDirectories = Map.copyOf(dataDirectories);
        this.callsAnswered = callsAnswered;
        this.every = every;
        this.thread = new Thread(this::run, "resource-sampler");
        this.thread.setDaemon(true);
    }

    /** Takes a first sample now, then one every interval until {@link #close}. */
    public ResourceSampler start() {
        sample();
        thread.start();
        return this;
    }

    /** The samples so far, oldest first. */
    public List<ResourceSample> samples() {
        return List.copyOf(samples);
    }

    private void run() {
        long next = System.nanoTime() + every.toNanos();
        while (running) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            next += every.toNanos();
            try {
                sample();
            } catch (RuntimeException e) {
                // one sample lost (a process gone while read in a way not foreseen): the run goes on, and so do the
                // others
            }
        }
    }

    /** One sample, added to {@link #samples}. */
    synchronized void sample() {
        long now = System.nanoTime();
        long calls = callsAnswered.getAsLong();
        double elapsed = (now - nanosBefore) / 1e9;
        double rate = samples.isEmpty() || elapsed <= 0 ? 0 : (calls - callsBefore) / elapsed;
        callsBefore = calls;
        nanosBefore = now;
        Map<String, ProcessResources> byProcess = new LinkedHashMap<>();
        Set<Long> live = new HashSet<>();
        processes.get().forEach((name, pid) -> {
            live.add(pid);
            ProcessResources.read(pid, heap.retainedAfterGc(pid)).ifPresent(read -> byProcess.put(name, read));
        });
        heap.keepOnly(live);
        Map<String, Long> directories = new LinkedHashMap<>();
        dataDirectories.forEach((node, directory) -> directories.put(node, bytesUnder(directory)));
        samples.add(new ResourceSample((now - startNanos) / 1e9, byProcess, directories, rate));
    }

    static long bytesUnder(Path directory) {
        if (!Files.isDirectory(directory)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(file -> {
                        try {
                            return Files.size(file);
                        } catch (IOException e) {
                            return 0; // removed while walked (a log segment rolled over)
                        }
                    })
                    .sum();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    /** Stops sampling (a last sample is taken first) and forgets the attached processes. */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        running = false;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample();
        heap.close();
    }
}
