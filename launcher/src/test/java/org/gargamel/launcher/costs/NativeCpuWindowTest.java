package org.gargamel.launcher.costs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The native figures from the four readings: execute is the publisher less its walsenders over the interval; decode
 * the walsenders and apply the subscriber from the moment the subscriber had applied what came before the interval
 * until it caught up after it.
 */
@Tag("unit")
class NativeCpuWindowTest {
    @Test
    void executeDecodeAndApplyComeFromTheirOwnProcessesAndSpans() {
        NativeCpuWindow.Ticks start = new NativeCpuWindow.Ticks(1_000, 100, 500, 0);
        // The subscriber was still applying the warm-up's backlog when the interval began: 40 walsender ticks and 200
        // subscriber ticks of it, which are not the interval's.
        NativeCpuWindow.Ticks applyStart = new NativeCpuWindow.Ticks(1_200, 140, 700, 2_000_000_000L);
        NativeCpuWindow.Ticks end = new NativeCpuWindow.Ticks(2_500, 250, 900, 10_000_000_000L);
        // After the interval the publisher did 20 ticks more, 10 of them its walsender's; the subscriber 100.
        NativeCpuWindow.Ticks caughtUp = new NativeCpuWindow.Ticks(2_520, 260, 1_000, 10_500_000_000L);

        NativeCosts costs =
                NativeCpuWindow.of(start, end, applyStart, caughtUp, 1_000, 900, Duration.ofMillis(500), 1, "18.6");

        // execute: (2500 - 250) - (1000 - 100) = 1350 ticks = 13.5 s; decode 260 - 140 = 120 ticks; apply 1000 - 700
        // = 300 ticks.
        assertEquals(new NativeCosts.Figures(13.5, 1.2, 3.0), costs.perCall());
        assertEquals(new NativeCosts.Figures(15.0, 1.333, 3.333), costs.perUpdateTransaction());
        assertEquals(4.5, costs.executeOverApply(), 1e-9);
        assertEquals(10.0, costs.seconds(), 1e-9);
        assertEquals(500, costs.catchUpMs());
        assertEquals(900, costs.updateTransactions());
    }
}
