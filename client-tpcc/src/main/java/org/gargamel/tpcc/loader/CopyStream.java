package org.gargamel.tpcc.loader;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.LongConsumer;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Rows streamed into one table with {@code COPY ... FROM STDIN} (text format): values are appended to a
 * small buffer that is sent whenever it fills, so a table is never held in memory.
 */
final class CopyStream implements AutoCloseable {
    private static final int FLUSH_BYTES = 1 << 16;
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final String table;
    private final CopyIn copy;
    private final LongConsumer progress;
    private final StringBuilder buffer = new StringBuilder(FLUSH_BYTES + 4096);
    private boolean rowStarted;
    private long rows;
    private long unreportedRows;
    private boolean finished;

    CopyStream(Connection connection, String table, List<String> columns, LongConsumer progress) throws SQLException {
        this.table = table;
        this.progress = progress;
        this.copy = connection
                .unwrap(PGConnection.class)
                .getCopyAPI()
                .copyIn("COPY " + table + " (" + String.join(", ", columns) + ") FROM STDIN");
    }

    CopyStream add(int value) {
        separate();
        buffer.append(value);
        return this;
    }

    CopyStream add(BigDecimal value) {
        separate();
        buffer.append(value.toPlainString());
        return this;
    }

    CopyStream add(LocalDateTime value) {
        separate();
        buffer.append(TIMESTAMP.format(value));
        return this;
    }

    /** A text value; tabs, newlines and backslashes are escaped for COPY's text format. */
    CopyStream add(String value) {
        separate();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> buffer.append("\\\\");
                case '\t' -> buffer.append("\\t");
                case '\n' -> buffer.append("\\n");
                case '\r' -> buffer.append("\\r");
                default -> buffer.append(c);
            }
        }
        return this;
    }

    CopyStream addNull() {
        separate();
        buffer.append("\\N");
        return this;
    }

    void endRow() throws SQLException {
        buffer.append('\n');
        rowStarted = false;
        rows++;
        unreportedRows++;
        if (buffer.length() >= FLUSH_BYTES) {
            flush();
        }
    }

    long rows() {
        return rows;
    }

    private void separate() {
        if (rowStarted) {
            buffer.append('\t');
        }
        rowStarted = true;
    }

    private void flush() throws SQLException {
        if (buffer.length() > 0) {
            byte[] bytes = buffer.toString().getBytes(StandardCharsets.UTF_8);
            buffer.setLength(0);
            try {
                copy.writeToCopy(bytes, 0, bytes.length);
            } catch (SQLException e) {
                throw new SQLException(
                        "COPY into " + table + " failed after " + rows + " rows: " + e.getMessage(),
                        e.getSQLState(),
                        e);
            }
        }
        progress.accept(unreportedRows);
        unreportedRows = 0;
    }

    /** Sends the last rows and ends the COPY; the rows are committed when this returns. */
    void finish() throws SQLException {
        if (rowStarted) {
            throw new IllegalStateException(
                    "COPY into " + table + ": row " + (rows + 1) + " was started but not ended");
        }
        flush();
        try {
            copy.endCopy();
        } catch (SQLException e) {
            throw new SQLException(
                    "COPY into " + table + " failed at its end (" + rows + " rows sent): " + e.getMessage(),
                    e.getSQLState(),
                    e);
        }
        finished = true;
    }

    /** Cancels the COPY unless {@link #finish()} completed it: nothing of a failed table is committed. */
    @Override
    public void close() throws SQLException {
        if (!finished && copy.isActive()) {
            copy.cancelCopy();
        }
    }
}
