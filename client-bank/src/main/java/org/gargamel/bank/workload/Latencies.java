package org.gargamel.bank.workload;

import java.util.Arrays;

/** Call latencies in microseconds, kept whole (a minute's calls fit easily) and sorted once for percentiles. */
final class Latencies {
    private long[] micros = new long[1024];
    private int size;

    void add(long latencyMicros) {
        if (size == micros.length) {
            micros = Arrays.copyOf(micros, size * 2);
        }
        micros[size++] = latencyMicros;
    }

    void addAll(Latencies other) {
        for (int i = 0; i < other.size; i++) {
            add(other.micros[i]);
        }
    }

    int count() {
        return size;
    }

    /** The {@code percentile} (0 to 100) in milliseconds by the nearest-rank method; 0 without calls. */
    double percentileMillis(double percentile) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(micros, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100.0 * size);
        return sorted[Math.max(0, Math.min(size, rank) - 1)] / 1000.0;
    }
}
