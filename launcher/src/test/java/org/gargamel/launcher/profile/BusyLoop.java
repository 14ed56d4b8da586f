package org.gargamel.launcher.profile;

import java.io.IOException;

/**
 * A JVM for {@link ProcessProfilerTest} to profile: prints {@value #READY}, then spends its CPU in
 * {@link #spinForProfiler}. It exits when its standard input closes (the test, or the test's JVM, is gone) or after a
 * minute, so that it never outlives the test.
 */
public final class BusyLoop {
    static final String READY = "busy loop ready";
    private static final long LIFETIME_MILLIS = 60_000;

    private static volatile long sink;

    private BusyLoop() {}

    public static void main(String[] args) {
        Thread watchdog = new Thread(
                () -> {
                    try {
                        while (System.in.read() >= 0) {
                            // the test writes nothing; end of input means it is gone
                        }
                    } catch (IOException e) {
                        // as gone
                    }
                    System.exit(0);
                },
                "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.out.println(READY);
        System.out.flush();
        long end = System.currentTimeMillis() + LIFETIME_MILLIS;
        while (System.currentTimeMillis() < end) {
            sink = spinForProfiler(200_000);
        }
    }

    /** The method the profile must show. */
    static long spinForProfiler(long rounds) {
        long x = sink;
        for (long i = 0; i < rounds; i++) {
            x += (i * 31) ^ (x >>> 3);
        }
        return x;
    }
}
