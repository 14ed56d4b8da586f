package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The native figures from the three readings: execute is the publisher less its walsenders over the interval; decode
 * the walsenders and apply the subscriber from the interval's start until the subscriber caught up.
 */
@Tag("unit")
class NativeCpuWindowTest {
    @Test
    void executeDecodeAndApplyComeFromTheirOwnProcessesAndSpans() {
        NativeCpuWindow.Ticks start = new NativeCpuWindow.Ticks(1_000, 100, 500, 0);
        NativeCpuWindow.Ticks end = new NativeCpuWindow.Ticks(2_500, 250, 900, 10_000_000_000L);
        // After the interval the publisher did 20 ticks more, 10 of them its walsender's; the subscriber 100.
        NativeCpuWindow.Ticks caughtUp = new NativeCpuWindow.Ticks(2_520, 260, 1_000, 10_500_000_000L);

        NativeCosts costs = NativeCpuWindow.of(start, end, caughtUp, 1_000, 900, Duration.ofMillis(500), 1, "18.6");

        // execute: (2500 - 250) - (1000 - 100) = 1350 ticks = 13.5 s; decode 160 ticks; apply 500 ticks.
        assertEquals(new NativeCosts.Figures(13.5, 1.6, 5.0), costs.perCall());
        assertEquals(new NativeCosts.Figures(15.0, 1.778, 5.556), costs.perUpdateTransaction());
        assertEquals(2.7, costs.executeOverApply(), 1e-9);
        assertEquals(10.0, costs.seconds(), 1e-9);
        assertEquals(500, costs.catchUpMs());
        assertEquals(900, costs.updateTransactions());
    }
}
