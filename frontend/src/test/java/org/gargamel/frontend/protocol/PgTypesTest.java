package org.gargamel.frontend.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("unit")
class PgTypesTest {
    @ParameterizedTest
    @ValueSource(strings = {"0", "1", "-1", "10000", "12345.6789", "0.0001", "-0.50", "100.00", "123456789012.000001"})
    void numericsSurviveTheBinaryFormat(String text) {
        BigDecimal value = new BigDecimal(text);
        assertEquals(value, PgTypes.decodeNumeric(PgTypes.encodeNumeric(text)));
        assertEquals(
                value.toPlainString(), PgTypes.binaryToText(PgTypes.encode(text, PgTypes.NUMERIC, 1), PgTypes.NUMERIC));
    }

    @Test
    void numericBinaryIsPostgresqlsLayout() {
        // 12345.67: digits 1, 2345, 6700; weight 1; positive; display scale 2.
        ByteBuffer expected = ByteBuffer.allocate(14);
        expected.putShort((short) 3).putShort((short) 1).putShort((short) 0).putShort((short) 2);
        expected.putShort((short) 1).putShort((short) 2345).putShort((short) 6700);
        assertArrayEquals(expected.array(), PgTypes.encodeNumeric("12345.67"));
    }

    @Test
    void scalarsAndArraysInBinary() {
        assertArrayEquals(new byte[] {0, 0, 0, 42}, PgTypes.encode("42", PgTypes.INT4, 1));
        assertEquals("42", PgTypes.binaryToText(new byte[] {0, 0, 0, 42}, PgTypes.INT4));
        assertEquals("t", PgTypes.binaryToText(PgTypes.encode("t", PgTypes.BOOL, 1), PgTypes.BOOL));
        assertEquals(
                "2026-01-02 03:04:05.5",
                PgTypes.binaryToText(PgTypes.encode("2026-01-02 03:04:05.5", PgTypes.TIMESTAMP, 1), PgTypes.TIMESTAMP));
        int textArray = PgTypes.arrayOf(PgTypes.TEXT);
        assertEquals(
                "{a,\"b c\",NULL,\"\"}",
                PgTypes.binaryToText(PgTypes.encode("{a,\"b c\",NULL,\"\"}", textArray, 1), textArray));
        assertEquals("{}", PgTypes.binaryToText(PgTypes.encode("{}", PgTypes.arrayOf(PgTypes.INT4), 1), 1007));
        assertEquals(
                "abc", new String(PgTypes.encode("abc", PgTypes.INT4, 0), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void arrayLiterals() {
        assertEquals(Arrays.asList("1", null, "a,b", "x\"y"), ArrayLiteral.parse("{1, NULL, \"a,b\", \"x\\\"y\"}"));
        assertEquals(List.of(), ArrayLiteral.parse("{}"));
        assertEquals(
                "22P02",
                assertThrows(PgTypes.ValueException.class, () -> ArrayLiteral.parse("{{1}}"))
                        .sqlState());
        assertEquals(
                "22P02",
                assertThrows(PgTypes.ValueException.class, () -> ArrayLiteral.parse("1,2"))
                        .sqlState());
    }

    @Test
    void aBinaryValueOfTheWrongSizeIsRefused() {
        assertEquals(
                "22P03",
                assertThrows(PgTypes.ValueException.class, () -> PgTypes.binaryToText(new byte[3], PgTypes.INT4))
                        .sqlState());
    }
}
