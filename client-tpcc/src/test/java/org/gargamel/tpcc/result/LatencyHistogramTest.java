package org.gargamel.tpcc.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
