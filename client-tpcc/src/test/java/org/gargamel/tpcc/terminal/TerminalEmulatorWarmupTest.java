package org.gargamel.tpcc.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.ExecutionOutcome;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The warm-up runs calls like the measurement interval does, and none of them is counted. */
@Tag("unit")
class TerminalEmulatorWarmupTest {
    private static final NURandConstants CONSTANTS = NURandConstants.forLoad(new SplittableRandom(1));

    /** Commits every call at once and counts them. */
    private static class CountingExecutor implements CallExecutor {
        final AtomicLong calls;

        CountingExecutor(AtomicLong calls) {
            this.calls = calls;
        }

        @Override
        public ExecutionOutcome execute(ProcedureCall call) {
            calls.incrementAndGet();
            return ExecutionOutcome.committed(0, 0);
        }

        @Override
        public void close() {}
    }

    private static RunSettings settings(Duration warmup, Duration duration, Double rate) {
        return new RunSettings(1, 2, warmup, duration, rate, false, 7, CONSTANTS, Clock.systemUTC());
    }

    @Test
    void anOpenLoopCountsExactlyTheArrivalsDueInTheMeasurementInterval() {
        AtomicLong calls = new AtomicLong();
        // 200 calls/s: arrivals 0-99 are due in the half-second warm-up, 100-199 in the measured half-second.
        TerminalEmulator emulator = new TerminalEmulator(
                settings(Duration.ofMillis(500), Duration.ofMillis(500), 200.0),
                terminal -> new CountingExecutor(calls));
        RunStatistics statistics = emulator.run();
        assertEquals(200, calls.get(), "every arrival ran, warm-up included");
        assertEquals(100, statistics.finished(), "only the measured interval's arrivals are counted");
        assertEquals(0, statistics.dropped());
        assertTrue(
                emulator.measuredSeconds() > 0.45 && emulator.measuredSeconds() < 0.75,
                "the measured interval excludes the warm-up: " + emulator.measuredSeconds() + " s");
    }

    @Test
    void closedLoopTerminalsKeepRunningThroughTheWarmUpButCountOnlyAfterIt() {
        AtomicLong calls = new AtomicLong();
        TerminalEmulator emulator = new TerminalEmulator(
                settings(Duration.ofMillis(400), Duration.ofMillis(200), null),
                terminal -> new CountingExecutor(calls));
        RunStatistics statistics = emulator.run();
        assertTrue(statistics.finished() > 0, "calls were measured");
        assertTrue(
                calls.get() > statistics.finished(),
                "calls of the warm-up ran but were not counted: " + calls.get() + " ran, " + statistics.finished()
                        + " counted");
        assertTrue(
                emulator.measuredSeconds() > 0.15 && emulator.measuredSeconds() < 0.45,
                "the measured interval excludes the warm-up: " + emulator.measuredSeconds() + " s");
    }

    @Test
    void aCallThatFailsDuringTheWarmUpStillCountsAsAnError() {
        AtomicLong calls = new AtomicLong();
        TerminalEmulator emulator = new TerminalEmulator(
                settings(Duration.ofMillis(500), Duration.ofMillis(500), 200.0),
                terminal -> new CountingExecutor(calls) {
                    @Override
                    public ExecutionOutcome execute(ProcedureCall call) {
                        // The very first arrival, due at the start of the warm-up, gets no outcome.
                        return calls.incrementAndGet() == 1
                                ? new ExecutionOutcome(ExecutionOutcome.Kind.FAILED, 0, 0, "08006", "connection lost")
                                : ExecutionOutcome.committed(0, 0);
                    }
                });
        RunStatistics statistics = emulator.run();
        assertEquals(1, statistics.errors(), "a failure is never hidden by the warm-up");
        assertTrue(statistics.firstError().contains("connection lost"), statistics.firstError());
        assertEquals(100, statistics.finished(), "the failure does not count as a measured call");
    }

    @Test
    void withoutAWarmUpEveryCallCounts() {
        AtomicLong calls = new AtomicLong();
        RunStatistics statistics = new TerminalEmulator(
                        settings(Duration.ZERO, Duration.ofMillis(500), 200.0), terminal -> new CountingExecutor(calls))
                .run();
        assertEquals(100, calls.get());
        assertEquals(100, statistics.finished());
    }

    @Test
    void aNegativeWarmUpIsRefused() {
        IllegalArgumentException error = assertThrows(
                IllegalArgumentException.class, () -> settings(Duration.ofSeconds(-1), Duration.ofSeconds(1), null));
        assertTrue(error.getMessage().contains("warm-up"), error.getMessage());
    }
}
