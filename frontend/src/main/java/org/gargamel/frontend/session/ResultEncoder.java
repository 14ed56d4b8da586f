package org.gargamel.frontend.session;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.sql.SqlStatement;

/**
 * Rows as the client gets them: the RowDescription fields, the DataRows in the formats the client asked for (text,
 * or binary where the type has one), and the shape a call's form gives its rows. Guarded by ResultEncoderTest.
 */
final class ResultEncoder {
    private ResultEncoder() {}

    /** RowDescription (when {@code describeRows}), every DataRow in {@code formats}, and CommandComplete {@code tag}. */
    static void send(ByteBuf out, ResultRows rows, List<Short> formats, boolean describeRows, String tag) {
        if (describeRows) {
            BackendMessages.rowDescription(out, fields(rows.columns(), formats));
        }
        dataRows(out, rows, formats, 0, rows.rows().size());
        BackendMessages.commandComplete(out, tag);
    }

    /**
     * DataRows of rows {@code from} (inclusive) to {@code to} (exclusive) in {@code formats}; a value that cannot be
     * encoded is an error, thrown after the rows before it were written.
     */
    static void dataRows(ByteBuf out, ResultRows rows, List<Short> formats, int from, int to) {
        for (List<String> row : rows.rows().subList(from, to)) {
            List<byte[]> values = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                try {
                    values.add(PgTypes.encode(row.get(i), rows.columns().get(i).typeOid(), format(formats, i)));
                } catch (PgTypes.ValueException e) {
                    throw SqlError.of(e);
                }
            }
            BackendMessages.dataRow(out, values);
        }
    }

    /** RowDescription's fields; a column asked for in binary whose type has no binary form is an error (0A000). */
    static List<BackendMessages.Field> fields(List<ResultRows.Column> columns, List<Short> formats) {
        List<BackendMessages.Field> fields = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            ResultRows.Column column = columns.get(i);
            short format = format(formats, i);
            if (format == 1 && !PgTypes.binarySupported(column.typeOid())) {
                throw new SqlError(
                        "0A000",
                        "column " + column.name() + " (type " + column.typeOid() + ") cannot be sent in binary format "
                                + "by the front end; ask for text");
            }
            fields.add(new BackendMessages.Field(
                    column.name(), column.typeOid(), PgTypes.typeLength(column.typeOid()), format));
        }
        return fields;
    }

    /** A column's format: none given is text, one given is every column's, else each its own. */
    static short format(List<Short> formats, int column) {
        if (formats.isEmpty()) {
            return 0;
        }
        return formats.size() == 1 ? formats.get(0) : formats.get(column);
    }

    /** The rows of a committed call as its form shows them (an outcome without rows: its result as one column). */
    static ResultRows callRows(SqlStatement.Call call, CallOutcome outcome) {
        return shape(call, outcome.rows() != null ? outcome.rows() : fallbackRows(call, outcome));
    }

    /** A call's command tag: CALL, or SELECT and its row count. */
    static String callTag(SqlStatement.Call call, ResultRows rows) {
        return call.form() == SqlStatement.Form.CALL
                ? "CALL"
                : "SELECT " + rows.rows().size();
    }

    /** An outcome without rows (from a node that predates them): its one-line result as one text column. */
    private static ResultRows fallbackRows(SqlStatement.Call call, CallOutcome outcome) {
        return new ResultRows(
                List.of(new ResultRows.Column(call.procedure(), PgTypes.TEXT)),
                outcome.result() == null ? List.of() : List.of(List.of(outcome.result())));
    }

    /**
     * The rows as the client's form of the call shows them: {@code SELECT p(...)} gives one column named after the
     * procedure (or its alias), holding a record when the procedure returns several columns.
     */
    static ResultRows shape(SqlStatement.Call call, ResultRows rows) {
        if (call.form() != SqlStatement.Form.SELECT_VALUE) {
            return rows;
        }
        String name = call.column() != null ? call.column() : call.procedure();
        if (rows.columns().size() == 1) {
            return new ResultRows(
                    List.of(new ResultRows.Column(name, rows.columns().get(0).typeOid())), rows.rows());
        }
        List<List<String>> records = new ArrayList<>(rows.rows().size());
        for (List<String> row : rows.rows()) {
            records.add(Collections.singletonList(record(row)));
        }
        return new ResultRows(List.of(new ResultRows.Column(name, PgTypes.RECORD)), records);
    }

    /** A row as PostgreSQL's record text: {@code (1,"a b",)}. */
    static String record(List<String> values) {
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                text.append(',');
            }
            String value = values.get(i);
            if (value == null) {
                continue;
            }
            boolean quote = value.isEmpty();
            for (int j = 0; j < value.length() && !quote; j++) {
                char c = value.charAt(j);
                quote = c == ',' || c == '(' || c == ')' || c == '"' || c == '\\' || Character.isWhitespace(c);
            }
            if (quote) {
                text.append('"')
                        .append(value.replace("\\", "\\\\").replace("\"", "\"\""))
                        .append('"');
            } else {
                text.append(value);
            }
        }
        return text.append(')').toString();
    }
}
