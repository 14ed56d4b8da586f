package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The rows a committed call returned, as PostgreSQL described them: each column's name and type (its pg_type OID),
 * and every row, each value in PostgreSQL's text format (null for SQL NULL). The wire-protocol front end sends them to
 * its client as they are; the library gets the same rows, and {@link #summary()} for the one-line text it always had.
 */
public record ResultRows(List<Column> columns, List<List<String>> rows) {
    /** No columns, no rows: what a call that returns nothing (a void function) gives. */
    public static final ResultRows EMPTY = new ResultRows(List.of(), List.of());

    /** A column: its name (the label PostgreSQL gave it) and its type's OID in pg_type. */
    public record Column(String name, int typeOid) {
        public Column {
            Objects.requireNonNull(name, "name");
        }
    }

    public ResultRows {
        columns = List.copyOf(columns);
        List<List<String>> copy = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException(
                        "a row of " + row.size() + " value(s) where there are " + columns.size() + " column(s)");
            }
            copy.add(Collections.unmodifiableList(new ArrayList<>(row))); // values may be null: no List.copyOf
        }
        rows = Collections.unmodifiableList(copy);
    }

    /**
     * The result as one line of text, as the library always gave it: the first row, e.g. {@code (3001,15.50)} (a single
     * column without parentheses), with a count of further rows; empty if there is no row.
     */
    public String summary() {
        if (rows.isEmpty()) {
            return "";
        }
        List<String> first = rows.get(0);
        int count = columns.size();
        StringBuilder text = new StringBuilder(count > 1 ? "(" : "");
        for (int i = 0; i < count; i++) {
            text.append(i > 0 ? "," : "").append(first.get(i));
        }
        int more = rows.size() - 1;
        return text.append(count > 1 ? ")" : "")
                .append(more > 0 ? " (+" + more + " rows)" : "")
                .toString();
    }

    void write(DataOutput out) throws IOException {
        out.writeInt(columns.size());
        for (Column column : columns) {
            WireCodec.writeString(out, column.name());
            out.writeInt(column.typeOid());
        }
        out.writeInt(rows.size());
        for (List<String> row : rows) {
            for (String value : row) {
                WireCodec.writeNullableString(out, value);
            }
        }
    }

    static ResultRows read(DataInput in) throws IOException {
        int columnCount = WireCodec.readCount(in, "result column count");
        List<Column> columns = new ArrayList<>(Math.min(columnCount, 1024));
        for (int i = 0; i < columnCount; i++) {
            columns.add(new Column(WireCodec.readString(in), in.readInt()));
        }
        int rowCount = WireCodec.readCount(in, "result row count");
        List<List<String>> rows = new ArrayList<>(Math.min(rowCount, 4096));
        for (int r = 0; r < rowCount; r++) {
            List<String> row = new ArrayList<>(columnCount);
            for (int i = 0; i < columnCount; i++) {
                row.add(WireCodec.readNullableString(in));
            }
            rows.add(row);
        }
        return new ResultRows(columns, rows);
    }
}
