package org.gargamel.frontend.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.sql.SqlStatement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Rows as the client gets them: RowDescription, DataRows in text and binary, the tag, and a call form's shape. */
@Tag("unit")
class ResultEncoderTest {
    private static final ResultRows ROWS = new ResultRows(
            List.of(new ResultRows.Column("id", PgTypes.INT4), new ResultRows.Column("owner", PgTypes.TEXT)),
            List.of(List.of("1", "a b"), Arrays.asList("2", null)));

    @Test
    void rowsInTextAfterTheirDescriptionThenTheTag() {
        ByteBuf out = Unpooled.buffer();
        ResultEncoder.send(out, ROWS, List.of(), true, "SELECT 2");
        assertEquals(List.of("T id|owner", "D 1|a b", "D 2|null", "C SELECT 2"), briefs(out));
    }

    @Test
    void binaryValuesWhereAskedAndOnlyTheRowsOfTheSlice() {
        ByteBuf out = Unpooled.buffer();
        ResultEncoder.dataRows(out, ROWS, List.of((short) 1, (short) 0), 1, 2);
        List<EmbeddedSession.Message> messages = messages(out);
        assertEquals(1, messages.size());
        ByteBuf row = Unpooled.wrappedBuffer(messages.get(0).body());
        assertEquals(2, row.readShort());
        assertEquals(4, row.readInt());
        assertEquals(2, row.readInt(), "int4 2 in binary");
        assertEquals(-1, row.readInt(), "NULL");
    }

    @Test
    void aValueThatCannotBeEncodedIsAnErrorAfterTheRowsBeforeIt() {
        ResultRows rows =
                new ResultRows(List.of(new ResultRows.Column("id", PgTypes.INT4)), List.of(List.of("1"), List.of("x")));
        ByteBuf out = Unpooled.buffer();
        SqlError error =
                assertThrows(SqlError.class, () -> ResultEncoder.dataRows(out, rows, List.of((short) 1), 0, 2));
        assertEquals("22P02", error.sqlState);
        assertEquals(1, messages(out).size(), "the first row went out");
        SqlError binary = assertThrows(
                SqlError.class,
                () -> ResultEncoder.fields(List.of(new ResultRows.Column("r", PgTypes.RECORD)), List.of((short) 1)));
        assertEquals("0A000", binary.sqlState);
    }

    @Test
    void selectValueShapesSeveralColumnsIntoOneRecord() {
        SqlStatement.Call call = new SqlStatement.Call(SqlStatement.Form.SELECT_VALUE, "statement", List.of(), "s");
        ResultRows shaped = ResultEncoder.shape(call, ROWS);
        assertEquals(List.of(new ResultRows.Column("s", PgTypes.RECORD)), shaped.columns());
        assertEquals(List.of(List.of("(1,\"a b\")"), List.of("(2,)")), shaped.rows());
        assertEquals("SELECT 2", ResultEncoder.callTag(call, shaped));
        SqlStatement.Call procedure = new SqlStatement.Call(SqlStatement.Form.CALL, "statement", List.of(), null);
        assertEquals(ROWS, ResultEncoder.shape(procedure, ROWS));
        assertEquals("CALL", ResultEncoder.callTag(procedure, ROWS));
        assertArrayEquals(new byte[] {0, 0, 0, 7}, PgTypes.encode("7", PgTypes.INT4, 1));
    }

    private static List<EmbeddedSession.Message> messages(ByteBuf out) {
        List<EmbeddedSession.Message> messages = new ArrayList<>();
        while (out.isReadable()) {
            char type = (char) out.readByte();
            byte[] body = new byte[out.readInt() - 4];
            out.readBytes(body);
            messages.add(new EmbeddedSession.Message(type, body));
        }
        return messages;
    }

    private static List<String> briefs(ByteBuf out) {
        return EmbeddedSession.briefs(messages(out));
    }
}
