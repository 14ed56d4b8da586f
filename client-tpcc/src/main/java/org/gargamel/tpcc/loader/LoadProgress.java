package org.gargamel.tpcc.loader;

import java.io.Console;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The load's progress on one line: a bar, percent, rows per second and time left. On a terminal the line
 * is redrawn in place ({@code \r}) a few times a second; otherwise (a log file, CI) a line is printed at
 * every tenth of the way. Ends with "loaded W warehouses into N database(s) in X s".
 *
 * <p>Thread-safe: loader threads report rows as they send them.
 */
public final class LoadProgress {
    private static final int BAR_WIDTH = 30;
    private static final long REDRAW_INTERVAL_NANOS = 250_000_000L;

    private final PrintStream out;
    private final boolean interactive;
    private final LongSupplier nanoClock;

    private long expectedRows = 1;
    private long rows;
    private long startNanos;
    private long lastDrawNanos;
    private int lastReportedTenth;
    private boolean lineOpen;

    public LoadProgress(PrintStream out, boolean interactive, LongSupplier nanoClock) {
        this.out = out;
        this.interactive = interactive;
        this.nanoClock = nanoClock;
    }

    /** On standard error, redrawn in place when the process runs on a terminal. */
    public static LoadProgress toStandardError() {
        return new LoadProgress(System.err, onTerminal(), System::nanoTime);
    }

    /**
     * Whether the process runs on a terminal (where the line is redrawn in place). Up to JDK 21 a console exists only
     * then; from JDK 22 one exists even with redirected streams, and {@code Console.isTerminal()} (JDK 22, so called
     * reflectively by this Java 17 code) tells.
     */
    // SystemConsoleNull is wrong here: the null check is the answer only before JDK 22; from then on isTerminal() is.
    @SuppressWarnings("SystemConsoleNull")
    public static boolean onTerminal() {
        Console console = System.console();
        if (console == null || Runtime.version().feature() < 22) {
            return console != null;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            throw new LinkageError("Console.isTerminal() on Java " + Runtime.version() + ": " + e, e);
        }
    }

    /** Prints nothing (tests, embedded use). */
    public static LoadProgress silent() {
        return new LoadProgress(new PrintStream(OutputStream.nullOutputStream()), false, System::nanoTime);
    }

    /** Starts the clock; {@code expectedRows} is the estimate the percentage is taken of. */
    public synchronized void start(long expectedRows) {
        this.expectedRows = Math.max(1, expectedRows);
        this.rows = 0;
        this.startNanos = nanoClock.getAsLong();
        this.lastDrawNanos = startNanos;
        this.lastReportedTenth = 0;
    }

    /** {@code count} more rows were sent. */
    public synchronized void advance(long count) {
        rows += count;
        long now = nanoClock.getAsLong();
        if (interactive) {
            if (now - lastDrawNanos >= REDRAW_INTERVAL_NANOS) {
                lastDrawNanos = now;
                out.print("\r" + line(now));
                out.flush();
                lineOpen = true;
            }
        } else {
            int tenth = (int) Math.min(9, percent() / 10);
            if (tenth > lastReportedTenth) {
                lastReportedTenth = tenth;
                out.println(line(now));
            }
        }
    }

    /** A step after the rows are in (indexes, ANALYZE), on a line of its own. */
    public synchronized void phase(String description) {
        closeLine();
        out.println(description);
    }

    /** The summary line. */
    public synchronized void finish(int warehouses, int databases) {
        closeLine();
        double seconds = (nanoClock.getAsLong() - startNanos) / 1e9;
        out.println(String.format(
                Locale.ROOT,
                "loaded %d warehouse%s into %d database(s) in %.1f s",
                warehouses,
                warehouses == 1 ? "" : "s",
                databases,
                seconds));
        out.flush();
    }

    public synchronized long rows() {
        return rows;
    }

    private void closeLine() {
        if (lineOpen) {
            out.println();
            lineOpen = false;
        }
    }

    /** Held below 100 until the end: order lines are counted at their expected number. */
    private long percent() {
        return Math.min(99, rows * 100 / expectedRows);
    }

    private String line(long now) {
        long percent = percent();
        int filled = (int) (percent * BAR_WIDTH / 100);
        double seconds = Math.max(1e-3, (now - startNanos) / 1e9);
        double rate = rows / seconds;
        String eta = rate <= 0 ? "?" : Long.toString(Math.round(Math.max(0, expectedRows - rows) / rate));
        return String.format(
                Locale.ROOT,
                "[%s%s] %3d%%  %,d rows/s  ETA %s s",
                "#".repeat(filled),
                ".".repeat(BAR_WIDTH - filled),
                percent,
                Math.round(rate),
                eta);
    }
}
