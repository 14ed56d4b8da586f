package org.gargamel.common.call;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDateTime;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A call's text (logs, errors, psql) for every value a client can send, however hostile. */
@Tag("unit")
class ProcedureCallTest {
    @Test
    void numericsPrintAsPlainDigitsWithinPostgresqlsRange() {
        assertEquals(
                "f(10.50, -0.000001, 1000)",
                ProcedureCall.of("f", new BigDecimal("10.50"), new BigDecimal("-0.000001"), new BigDecimal("1E+3"))
                        .toSql());
        String largest =
                ProcedureCall.of("f", new BigDecimal(BigInteger.ONE, -131_072)).toSql();
        assertEquals(131_073 + "f()".length(), largest.length(), "1 and 131072 zeros");
    }

    @Test
    void timestampsPrintTheirFractionOfASecondInMicroseconds() {
        assertEquals(
                "f('2026-01-01 10:00:00', '2026-01-01 10:00:00.123456', '2026-01-01 10:00:59.000001')",
                ProcedureCall.of(
                                "f",
                                LocalDateTime.of(2026, 1, 1, 10, 0),
                                LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_456_789),
                                LocalDateTime.of(2026, 1, 1, 10, 0, 59, 1_000))
                        .toSql());
    }

    @Test
    void numericsBeyondItPrintInExponentFormNotBillionsOfDigits() {
        assertEquals(
                "f(1E+2147483647)",
                ProcedureCall.of("f", new BigDecimal(BigInteger.ONE, -Integer.MAX_VALUE))
                        .toString());
        assertEquals(
                "f(1E-2147483647)",
                ProcedureCall.of("f", new BigDecimal(BigInteger.ONE, Integer.MAX_VALUE))
                        .toString());
        assertEquals(
                "f(ARRAY[NULL,1E+131073])",
                ProcedureCall.of("f", Arrays.asList(null, new BigDecimal(BigInteger.ONE, -131_073)))
                        .toSql());
    }
}
