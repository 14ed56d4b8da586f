package org.gargamel.tpcc.random;

import java.util.random.RandomGenerator;

/**
 * The constants C of NURand(A, x, y) (clause 2.1.6): one per A. The load draws one set; a run draws
 * another whose C for C_LAST differs from the load's by a delta in [65, 119], not 96 nor 112 (2.1.6.1).
 */
public record NURandConstants(int cLast, int cId, int olIId) {
    public static final int A_C_LAST = 255;
    public static final int A_C_ID = 1023;
    public static final int A_OL_I_ID = 8191;

    public NURandConstants {
        requireRange("C for C_LAST", cLast, A_C_LAST);
        requireRange("C for C_ID", cId, A_C_ID);
        requireRange("C for OL_I_ID", olIId, A_OL_I_ID);
    }

    private static void requireRange(String name, int value, int a) {
        if (value < 0 || value > a) {
            throw new IllegalArgumentException(name + " must be in [0, " + a + "], was " + value);
        }
    }

    /** Constants for the initial population. */
    public static NURandConstants forLoad(RandomGenerator random) {
        return new NURandConstants(
                random.nextInt(A_C_LAST + 1), random.nextInt(A_C_ID + 1), random.nextInt(A_OL_I_ID + 1));
    }

    /** Constants for a run against a database loaded with {@code load} (clause 2.1.6.1). */
    public static NURandConstants forRun(NURandConstants load, RandomGenerator random) {
        int cLast;
        do {
            cLast = random.nextInt(A_C_LAST + 1);
        } while (!isValidRunDelta(Math.abs(cLast - load.cLast())));
        return new NURandConstants(cLast, random.nextInt(A_C_ID + 1), random.nextInt(A_OL_I_ID + 1));
    }

    /** The run/load delta rule for C_LAST: 65 ≤ delta ≤ 119, delta ≠ 96, delta ≠ 112. */
    public static boolean isValidRunDelta(int delta) {
        return delta >= 65 && delta <= 119 && delta != 96 && delta != 112;
    }
}
