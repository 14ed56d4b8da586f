package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Numeric key parts: equal values give one key whatever their scale, and a value no PostgreSQL numeric can hold (any
 * client can send one) is a rejected call, never an ArithmeticException or a string of billions of digits, which
 * would be a failure of the scheduler's loop.
 */
@Tag("unit")
class NumericKeyTest {
    private static final ClassifierRules RULES =
            RulesLoader.load(new ByteArrayInputStream("""
            tables:
              ledger: {key: [amount], columns: [amount, note]}
            procedures:
              annotate:
                parameters:
                  - {name: amount, type: numeric}
                  - {name: note, type: text}
                writes:
                  - {update: ledger, key: [amount], columns: [note]}
            """.getBytes(StandardCharsets.UTF_8)), "ledger.yaml");

    private static List<WriteKey> keys(Object amount) {
        return RULES.writeKeys(ProcedureCall.of("annotate", amount, "x"), Isolation.PSI);
    }

    private static RulesException rejected(BigDecimal amount) {
        WriteKeyBuffer buffer = new WriteKeyBuffer();
        RulesException error = assertThrows(
                RulesException.class,
                () -> RULES.writeKeys(ProcedureCall.of("annotate", amount, "x"), Isolation.PSI, buffer));
        assertEquals(0, buffer.size(), "a rejected call leaves no keys behind");
        return error;
    }

    @Test
    void equalValuesGiveOneKeyWhateverTheirScale() {
        assertEquals(keys(new BigDecimal("10.5")), keys(new BigDecimal("10.50")));
        assertEquals(keys(7), keys(new BigDecimal("7.000")), "an integer argument and the same numeric");
        assertEquals(keys(new BigDecimal("1E+3")), keys(new BigDecimal("1000")));
        assertTrue(keys(new BigDecimal("10.5"))
                .get(0)
                .conflictsWith(keys(new BigDecimal("10.500")).get(0)));
        assertTrue(!keys(new BigDecimal("10.5"))
                .get(0)
                .conflictsWith(keys(new BigDecimal("10.51")).get(0)));
    }

    @Test
    void theLargestValuesPostgresqlHoldsStillGiveKeys() {
        assertEquals(1, keys(new BigDecimal(BigInteger.ONE, -131_071)).size(), "1E+131071: 131072 digits");
        assertEquals(1, keys(new BigDecimal(BigInteger.ONE, 16_383)).size(), "1E-16383");
        assertEquals(1, keys(new BigDecimal("999999999999999999")).size(), "18 digits: a long");
        assertEquals(1, keys(new BigDecimal("9999999999999999999")).size(), "19 digits: hashed");
    }

    @Test
    void valuesBeyondPostgresqlsNumericAreRejectedCallsNamingThePart() {
        RulesException overflow = rejected(new BigDecimal(BigInteger.ONE, Integer.MIN_VALUE + 1));
        assertTrue(
                overflow.getMessage()
                        .startsWith("annotate: key part amount of ledger: numeric value with scale "
                                + (Integer.MIN_VALUE + 1)),
                overflow.getMessage());
        assertTrue(
                overflow.getMessage()
                        .contains("outside PostgreSQL's numeric range (131072 digits before the point, "
                                + "16383 after)"),
                overflow.getMessage());
        assertTrue(rejected(new BigDecimal(BigInteger.TEN, Integer.MIN_VALUE))
                .getMessage()
                .contains("outside"));
        assertTrue(rejected(new BigDecimal(BigInteger.ONE, Integer.MAX_VALUE))
                .getMessage()
                .contains("outside"));
        assertTrue(rejected(new BigDecimal(BigInteger.ONE, 16_384)).getMessage().contains("scale 16384"));
        assertTrue(
                rejected(new BigDecimal(BigInteger.ONE, -131_072)).getMessage().contains("outside"));
        assertTrue(rejected(new BigDecimal(BigInteger.ONE.shiftLeft(8_000_000), 0))
                .getMessage()
                .contains("8000001 bits"));
    }
}
