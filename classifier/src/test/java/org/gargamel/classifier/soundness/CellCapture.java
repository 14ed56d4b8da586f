package org.gargamel.classifier.soundness;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.tpcc.schema.TpccSchema;
import org.gargamel.tpcc.schema.TpccTable;

/**
 * Records, for one call, the cells (table, primary key, column) it changes: row triggers on every TPC-C
 * table write into a temporary table, the call runs in a transaction that is rolled back, and the cells
 * are read just before the rollback. Inserts and deletes count as every column of their row ({@code *}).
 * The database is left as it was, so every call is measured against the same state.
 */
final class CellCapture implements AutoCloseable {
    /**
     * One changed cell; {@code column} is {@code *} for a whole inserted or deleted row; {@code operation} is the
     * trigger's: INSERT, UPDATE or DELETE.
     */
    record Cell(String table, String key, String column, String operation) {
        boolean overlaps(Cell other) {
            return table.equals(other.table)
                    && key.equals(other.key)
                    && (column.equals("*") || other.column.equals("*") || column.equals(other.column));
        }
    }

    private static final String CAPTURE_FUNCTION = """
            CREATE OR REPLACE FUNCTION soundness_capture() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                old_row jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
                new_row jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
                image   jsonb := coalesce(new_row, old_row);
                row_key jsonb := '{}';
                key_column text;
                changed text;
            BEGIN
                IF TG_NARGS = 0 THEN
                    row_key := image;   -- history has no primary key: the whole row identifies it
                ELSE
                    FOREACH key_column IN ARRAY TG_ARGV LOOP
                        row_key := row_key || jsonb_build_object(key_column, image -> key_column);
                    END LOOP;
                END IF;
                IF TG_OP = 'UPDATE' THEN
                    FOR changed IN SELECT jsonb_object_keys(new_row) LOOP
                        IF new_row -> changed IS DISTINCT FROM old_row -> changed THEN
                            INSERT INTO captured_cells VALUES (TG_TABLE_NAME, row_key::text, changed, TG_OP);
                        END IF;
                    END LOOP;
                ELSE
                    INSERT INTO captured_cells VALUES (TG_TABLE_NAME, row_key::text, '*', TG_OP);
                END IF;
                RETURN NULL;
            END $$""";

    private final Connection connection;

    CellCapture(Connection connection) throws SQLException {
        this.connection = connection;
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            statement.execute(CAPTURE_FUNCTION);
            for (TpccTable table : TpccSchema.TABLES) {
                String arguments = String.join(
                        ", ",
                        table.primaryKey().stream().map(c -> "'" + c + "'").toList());
                statement.execute("CREATE TRIGGER soundness_capture AFTER INSERT OR UPDATE OR DELETE ON " + table.name()
                        + " FOR EACH ROW EXECUTE FUNCTION soundness_capture(" + arguments + ")");
            }
            statement.execute(
                    "CREATE TEMPORARY TABLE captured_cells (table_name text, row_key text, column_name text, operation text)");
        }
        connection.setAutoCommit(false);
    }

    /** The cells {@code call} changes from the current state; an error raised by the call changes none. */
    Set<Cell> cellsChangedBy(ProcedureCall call) throws SQLException {
        Set<Cell> cells = new HashSet<>();
        try {
            try (PreparedStatement statement = ProcedureCallBinder.prepare(connection, call)) {
                statement.execute(); // the result is not needed, only the writes
            } catch (SQLException e) {
                connection.rollback();
                return cells;
            }
            try (Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(
                            "SELECT table_name, row_key, column_name, operation FROM captured_cells")) {
                while (rows.next()) {
                    cells.add(new Cell(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4)));
                }
            }
        } finally {
            connection.rollback();
        }
        return cells;
    }

    static boolean intersect(Set<Cell> first, Set<Cell> second) {
        for (Cell a : first) {
            for (Cell b : second) {
                if (a.overlaps(b)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Removes the triggers, so the database is as the loader left it. */
    @Override
    public void close() throws SQLException {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            for (TpccTable table : TpccSchema.TABLES) {
                statement.execute("DROP TRIGGER IF EXISTS soundness_capture ON " + table.name());
            }
            statement.execute("DROP FUNCTION IF EXISTS soundness_capture()");
        }
    }
}
