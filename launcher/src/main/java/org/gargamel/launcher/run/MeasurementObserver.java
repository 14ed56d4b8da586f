package org.gargamel.launcher.run;

import org.gargamel.tpcc.result.RunStatistics;

/**
 * Told when a {@link TpccRun}'s measurement interval begins and ends, to take readings of its own beside the run's
 * (the native figures of {@code bench costs}: the CPU of a publisher and a subscriber the run does not know about).
 *
 * <p>Invariant: {@link #ended} is called once, after {@link #started} returned, and only if it was called (a run
 * interrupted during its warm-up calls neither, or only {@code started}).
 */
public interface MeasurementObserver {
    /** Observes nothing. */
    MeasurementObserver NONE = new MeasurementObserver() {
        @Override
        public void started() {}

        @Override
        public void ended(RunStatistics measured) {}
    };

    /** The warm-up is over and the interval begins (on a thread of the terminal emulator's). */
    void started();

    /**
     * The terminals have stopped, before the run waits for its target or checks anything; {@code measured}: the calls
     * that began in the interval. A failure here fails the run.
     */
    void ended(RunStatistics measured) throws InterruptedException;
}
