package org.gargamel.launcher.costs;

import org.gargamel.launcher.run.ProcStat;

/**
 * What PostgreSQL's own logical replication cost in the bench's native run: the kit's TPC-C run directly on a
 * publisher, one subscriber applying it. CPU in milliseconds per call ({@code calls}: as the terminals count them,
 * read-only and user-aborted calls included) and per update transaction ({@code updateTransactions}: the committed
 * New-Orders, Payments and Deliveries, the calls that have something to replicate):
 * <ul>
 *   <li>execute: the publisher's processes but its walsenders, over the measurement interval;
 *   <li>decode: the publisher's walsenders (logical decoding and sending), from the interval's start until the
 *       subscriber had caught up;
 *   <li>apply: every process of the subscriber's server, over that same span.
 * </ul>
 * {@code executeOverApply} is execute over apply per update transaction (e/a). {@code catchUpMs}: how long after the
 * interval the subscriber took to confirm everything the publisher had written. {@code converged}: the subscriber's
 * TPC-C tables equal the publisher's afterwards (the check {@code tpcc run} uses).
 */
public record NativeCosts(
        String serverVersion,
        double seconds,
        long calls,
        long updateTransactions,
        double tpmC,
        Figures perCall,
        Figures perUpdateTransaction,
        double executeOverApply,
        long catchUpMs,
        int walsenders,
        boolean converged,
        String result) {

    /** CPU milliseconds to execute, decode and apply. */
    public record Figures(double executeMs, double decodeMs, double applyMs) {
        /** From CPU ticks (USER_HZ) spent over {@code count} calls or transactions. */
        static Figures of(long executeTicks, long decodeTicks, long applyTicks, long count) {
            return new Figures(ms(executeTicks, count), ms(decodeTicks, count), ms(applyTicks, count));
        }

        private static double ms(long ticks, long count) {
            return count == 0 ? 0 : RoleCost.round(ticks * 1000.0 / ProcStat.TICKS_PER_SECOND / count);
        }
    }

    /** This with the figures of the run's result file: its tpmC, and where it is. */
    NativeCosts withRun(double runTpmC, String resultFile) {
        return new NativeCosts(
                serverVersion,
                seconds,
                calls,
                updateTransactions,
                runTpmC,
                perCall,
                perUpdateTransaction,
                executeOverApply,
                catchUpMs,
                walsenders,
                converged,
                resultFile);
    }

    /** This with the outcome of the convergence check. */
    NativeCosts withConverged(boolean identical) {
        return new NativeCosts(
                serverVersion,
                seconds,
                calls,
                updateTransactions,
                tpmC,
                perCall,
                perUpdateTransaction,
                executeOverApply,
                catchUpMs,
                walsenders,
                identical,
                result);
    }
}
