package org.gargamel.tpcc.random;

import java.util.SplittableRandom;

/**
 * The random functions of clause 2.1 and 4.3.2: uniform integers, NURand, random strings and the
 * customer last-name syllables. Not thread-safe: one instance per loader thread or terminal, each from
 * its own seed, so that a load is deterministic from its seed.
 */
public final class TpccRandom {
    private static final String[] SYLLABLES = {
        "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"
    };
    private static final char[] ALPHANUMERIC =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    private final SplittableRandom random;
    private final NURandConstants constants;

    public TpccRandom(long seed, NURandConstants constants) {
        this.random = new SplittableRandom(seed);
        this.constants = constants;
    }

    public NURandConstants constants() {
        return constants;
    }

    /** Uniform integer in [min, max], both inclusive. */
    public int uniform(int min, int max) {
        return random.nextInt(min, max + 1);
    }

    /** Uniform double in [0, 1). */
    public double nextDouble() {
        return random.nextDouble();
    }

    /** NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x, clause 2.1.6. */
    public int nonUniform(int a, int x, int y) {
        int c;
        if (a == NURandConstants.A_C_LAST) {
            c = constants.cLast();
        } else if (a == NURandConstants.A_C_ID) {
            c = constants.cId();
        } else if (a == NURandConstants.A_OL_I_ID) {
            c = constants.olIId();
        } else {
            throw new IllegalArgumentException("NURand A must be 255, 1023 or 8191, was " + a);
        }
        return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x;
    }

    /** A customer id for a run: NURand(1023, 1, 3000). */
    public int customerId() {
        return nonUniform(NURandConstants.A_C_ID, 1, 3000);
    }

    /** An item id for a run: NURand(8191, 1, 100000). */
    public int itemId() {
        return nonUniform(NURandConstants.A_OL_I_ID, 1, 100000);
    }

    /** A last name for a run (and for customers 1001..3000 of the load): from NURand(255, 0, 999). */
    public String customerLastName() {
        return lastName(nonUniform(NURandConstants.A_C_LAST, 0, 999));
    }

    /** The last name of number {@code number} in [0, 999]: three syllables, clause 4.3.2.3. */
    public static String lastName(int number) {
        if (number < 0 || number > 999) {
            throw new IllegalArgumentException("last name number must be in [0, 999], was " + number);
        }
        return SYLLABLES[number / 100] + SYLLABLES[(number / 10) % 10] + SYLLABLES[number % 10];
    }

    /** A random a-string (clause 4.3.2.2) of a length in [min, max]. */
    public String alphanumeric(int min, int max) {
        int length = uniform(min, max);
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = ALPHANUMERIC[random.nextInt(ALPHANUMERIC.length)];
        }
        return new String(chars);
    }

    /** A random n-string (digits) of a length in [min, max]. */
    public String numeric(int min, int max) {
        int length = uniform(min, max);
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('0' + random.nextInt(10));
        }
        return new String(chars);
    }

    /** Zip code: 4 random digits then "11111" (clause 4.3.2.7). */
    public String zip() {
        return numeric(4, 4) + "11111";
    }

    /** Data strings with "ORIGINAL" inserted at a random position in 10% of rows (clause 4.3.3.1). */
    public String dataWithOriginal(int min, int max) {
        String data = alphanumeric(min, max);
        if (uniform(1, 10) == 1) {
            int position = uniform(0, data.length() - 8);
            data = data.substring(0, position) + "ORIGINAL" + data.substring(position + 8);
        }
        return data;
    }

    /** A fixed-point amount in [min, max] with {@code scale} decimals, drawn uniformly in the smallest unit. */
    public java.math.BigDecimal decimal(long minUnits, long maxUnits, int scale) {
        return java.math.BigDecimal.valueOf(random.nextLong(minUnits, maxUnits + 1), scale);
    }
}
