package org.gargamel.common.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LatencyHistogramTest {

    @Test
    void percentilesAreWithinOnePercentOfTheExactValues() {
        SplittableRandom random = new SplittableRandom(3);
        long[] values = new long[100_000];
        LatencyHistogram first = new LatencyHistogram();
        LatencyHistogram second = new LatencyHistogram();
        for (int i = 0; i < values.length; i++) {
            // Log-normal-ish response times from 50 µs to seconds.
            values[i] = (long) Math.exp(random.nextDouble(4, 14));
            (i % 2 == 0 ? first : second).recordMicros(values[i]);
        }
        first.add(second);
        Arrays.sort(values);
        assertEquals(values.length, first.count());
        for (double percentile : new double[] {50, 95, 99}) {
            long exact = values[(int) Math.ceil(percentile / 100 * values.length) - 1];
            double measured = first.percentileMillis(percentile) * 1000;
            assertTrue(
                    Math.abs(measured - exact) <= exact * 0.011,
                    "p" + percentile + ": exact " + exact + " µs, histogram " + measured + " µs");
        }
        assertEquals(values[values.length - 1] / 1000.0, first.maxMillis(), 1e-9);
    }

    @Test
    void emptyHistogramReportsZero() {
        LatencyHistogram histogram = new LatencyHistogram();
        assertEquals(0, histogram.percentileMillis(99));
        assertEquals(0, histogram.maxMillis());
    }

    /** A node writes its histogram into its statistics file; the run reads it back and merges: nothing changes. */
    @Test
    void whatIsWrittenAsMapReadsBackAsTheSameHistogram() {
        LatencyHistogram written = new LatencyHistogram();
        for (long micros = 1; micros < 400_000; micros = micros * 3 + 7) {
            written.recordMicros(micros);
        }
        @SuppressWarnings("unchecked")
        java.util.Map<String, Long> buckets =
                (java.util.Map<String, Long>) written.toMap().get("buckets");
        java.util.Map<Integer, Long> read = new java.util.HashMap<>();
        buckets.forEach((index, count) -> read.put(Integer.parseInt(index), count));
        LatencyHistogram back = LatencyHistogram.of(read, (Long) written.toMap().get("maxMicros"));
        assertEquals(written.count(), back.count());
        assertEquals(written.maxMillis(), back.maxMillis());
        for (double percentile : new double[] {1, 50, 90, 99, 100}) {
            assertEquals(written.percentileMillis(percentile), back.percentileMillis(percentile), "p" + percentile);
        }
        assertThrows(IllegalArgumentException.class, () -> LatencyHistogram.of(java.util.Map.of(-1, 1L), 5));
        assertThrows(IllegalArgumentException.class, () -> LatencyHistogram.of(java.util.Map.of(3, -1L), 5));
    }
}
