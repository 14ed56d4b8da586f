package org.gargamel.classifier;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoField;

/**
 * A key part's value as the 64-bit number the conflict index keys on. Invariant: equal values (as PostgreSQL compares
 * a key's column: {@code 1000} and {@code 1e3} alike) give equal parts, on the classifier's path and on the write
 * checker's, which parses the same values from JSON ({@code WriteCheckerTest}, {@code NumericKeyTest}); unequal
 * values may collide, which only adds a conflict.
 */
final class KeyParts {
    /** PostgreSQL's numeric: at most 131072 digits before the decimal point and 16383 after. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;

    private static final int NUMERIC_MAX_SCALE = 16_383;
    /** More bits of digits than that many decimal digits can need: refused before counting digits (costly). */
    private static final int NUMERIC_MAX_BITS = 490_000;

    private KeyParts() {}

    /**
     * Integers as themselves; other values as a 64-bit hash (a collision only adds a conflict). A numeric beyond
     * PostgreSQL's range cannot be any row's key: a {@link RulesException} (the call is rejected), never an arithmetic
     * error or a string of billions of digits.
     */
    static long toLong(Object value) {
        if (value instanceof Integer integer) {
            return integer;
        }
        if (value instanceof Long number) {
            return number;
        }
        if (value instanceof BigDecimal decimal) {
            if (decimal.unscaledValue().bitLength() > NUMERIC_MAX_BITS
                    || decimal.scale() > NUMERIC_MAX_SCALE
                    || (long) decimal.precision() - decimal.scale() > NUMERIC_MAX_INTEGER_DIGITS) {
                throw new RulesException("numeric value with scale " + decimal.scale() + " and "
                        + decimal.unscaledValue().bitLength()
                        + " bits of digits is outside PostgreSQL's numeric range ("
                        + NUMERIC_MAX_INTEGER_DIGITS + " digits before the point, " + NUMERIC_MAX_SCALE + " after)");
            }
            BigDecimal normalized = decimal.stripTrailingZeros();
            if (normalized.scale() <= 0 && (long) normalized.precision() - normalized.scale() < 19) {
                return normalized.longValueExact();
            }
            return mix(normalized.toPlainString().hashCode() * 0x9E3779B97F4A7C15L);
        }
        if (value instanceof LocalDateTime timestamp) {
            return timestamp.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + timestamp.get(ChronoField.MICRO_OF_SECOND);
        }
        String text = value.toString();
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            hash = (hash ^ text.charAt(i)) * 0x100000001b3L;
        }
        return mix(hash);
    }

    static long mix(long value) {
        long z = value;
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
