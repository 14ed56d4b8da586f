package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The busy line's pacing: none while drains answer 0; the first busy answer (and the first after a pause longer than
 * {@link DrainReport#BUSY_REPORT}) starts counting; then at most one line per {@link DrainReport#BUSY_REPORT}, saying
 * for how long the drains have seen work.
 */
@Tag("unit")
class DrainReportTest {
    private static final long SECOND = 1_000_000_000L;
    private final DrainReport report = new DrainReport(null, null, null, null, null);

    @Test
    void aBusyLineComesAtMostOncePerPeriodAndCountsFromTheFirstBusyAnswer() {
        long start = 1_000 * SECOND;
        assertEquals(-1, report.answered(0, start), "idle");
        assertEquals(-1, report.answered(5, start + SECOND), "the first busy answer starts counting");
        assertEquals(-1, report.answered(5, start + 2 * SECOND));
        for (long s = 3; s <= 10; s++) {
            assertEquals(-1, report.answered(5, start + s * SECOND), "within the period, at " + s + " s");
        }
        assertEquals(10, report.answered(5, start + 11 * SECOND), "busy for 10 s");
        assertEquals(-1, report.answered(5, start + 12 * SECOND), "reported: quiet again for a period");
        assertEquals(20, report.answered(5, start + 21 * SECOND));
    }

    @Test
    void anIdleAnswerOrALongPauseStartsTheCountAgain() {
        long start = 1_000 * SECOND;
        report.answered(5, start);
        report.answered(5, start + 5 * SECOND);
        assertEquals(-1, report.answered(0, start + 6 * SECOND), "idle");
        assertEquals(-1, report.answered(5, start + 7 * SECOND), "counting again");
        assertEquals(-1, report.answered(5, start + 30 * SECOND), "a pause longer than the period: counting again");
        assertEquals(10, report.answered(5, start + 40 * SECOND), "answered every 10 s: counted from 30 s");
    }
}
