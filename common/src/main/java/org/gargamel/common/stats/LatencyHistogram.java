package org.gargamel.common.stats;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Response times in logarithmic buckets 1% wide, from 1 µs to about 20 minutes: bounded memory however
 * long the run, percentiles within 1% of the exact value, the maximum exact. Not thread-safe: one per
 * terminal and type (or per node), merged at the end.
 */
public final class LatencyHistogram {
    private static final double BUCKET_GROWTH = 1.01;
    private static final double LOG_GROWTH = Math.log(BUCKET_GROWTH);
    static final int BUCKETS = 2100;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long maxMicros;

    public void recordMicros(long micros) {
        long value = Math.max(1, micros);
        counts[bucket(value)]++;
        total++;
        maxMicros = Math.max(maxMicros, value);
    }

    public void recordNanos(long nanos) {
        recordMicros((nanos + 500) / 1000);
    }

    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        maxMicros = Math.max(maxMicros, other.maxMicros);
    }

    public long count() {
        return total;
    }

    /**
     * What a process writes to merge elsewhere (a node's agreement waits, merged by the run): the non-empty buckets,
     * by index, and the exact maximum. {@link #of} reads them back.
     */
    public Map<String, Object> toMap() {
        Map<String, Long> buckets = new TreeMap<>();
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] != 0) {
                buckets.put(Integer.toString(i), counts[i]);
            }
        }
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("buckets", buckets);
        map.put("maxMicros", maxMicros);
        return map;
    }

    /**
     * A histogram of {@code buckets} (index to count) and {@code maxMicros}, as {@link #toMap} wrote them.
     *
     * @throws IllegalArgumentException for a bucket index out of range or a negative count
     */
    public static LatencyHistogram of(Map<Integer, Long> buckets, long maxMicros) {
        LatencyHistogram histogram = new LatencyHistogram();
        for (Map.Entry<Integer, Long> bucket : buckets.entrySet()) {
            int index = bucket.getKey();
            long count = bucket.getValue();
            if (index < 0 || index >= BUCKETS || count < 0) {
                throw new IllegalArgumentException("no bucket " + index + " with " + count
                        + " values: buckets are 0 to " + (BUCKETS - 1) + " and counts not negative");
            }
            histogram.counts[index] += count;
            histogram.total += count;
        }
        histogram.maxMicros = Math.max(0, maxMicros);
        return histogram;
    }

    public double maxMillis() {
        return maxMicros / 1000.0;
    }

    /** The smallest bucket upper bound below which {@code percentile}% of the values lie, in ms. */
    public double percentileMillis(double percentile) {
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(percentile / 100.0 * (double) total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= Math.max(1, rank)) {
                return Math.min(upperBoundMicros(i), (double) maxMicros) / 1000.0;
            }
        }
        return maxMillis();
    }

    static int bucket(long micros) {
        int index = (int) (Math.log((double) micros) / LOG_GROWTH);
        return Math.min(index, BUCKETS - 1);
    }

    static double upperBoundMicros(int bucket) {
        return Math.pow(BUCKET_GROWTH, bucket + 1);
    }
}
