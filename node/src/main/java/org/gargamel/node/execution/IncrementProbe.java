package org.gargamel.node.execution;

import static org.gargamel.common.jdbc.Identifiers.quote;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.wire.Execute;
import org.gargamel.node.capture.Increments;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * The additivity probe (issue 18; docs/node.md, Increments): tells a procedure that really overwrites a column it
 * declares {@code add:} ({@code SET w_ytd = amount}) from one that adds to it. In one transaction that always ends in
 * ROLLBACK: under a savepoint, execute the call and note the deltas of its declared increment cells; roll back to the
 * savepoint; add 1 to each of those cells with capture off; execute the call again and note the deltas; roll back. A
 * pure addition changes each cell by the same amount whatever the cell held; anything else (an overwrite, a
 * {@code greatest}, a multiplication, an increment that depends on the cell) gives another delta for the perturbed
 * cell. Then the worker executes the call for real, as usual, in a transaction of its own.
 *
 * <p>Not caught: a procedure that reads the cell in one statement and writes {@code read + amount} in a later one (the
 * perturbation flows through the read: the same delta), which is a lost update when two such calls run at once.
 * Inconclusive (the call runs as usual): either execution fails, or the perturbation does (a value out of range, a
 * CHECK constraint).
 */
final class IncrementProbe {
    static final String SAVEPOINT = "gargamel_probe";

    /** A declared increment cell that the perturbation changed differently. */
    record Mismatch(Increments.Cell cell, BigDecimal delta, BigDecimal perturbedDelta) {
        /** Why it is no pure addition, for the unsound write. */
        String reason() {
            return "not an addition: it changed the cell by " + text(delta) + ", and by " + text(perturbedDelta)
                    + " when the cell held 1 more (incrementProbe)";
        }

        private static String text(BigDecimal delta) {
            return delta == null ? "nothing" : (delta.signum() >= 0 ? "+" : "") + delta.toPlainString();
        }
    }

    private IncrementProbe() {}

    /**
     * Probes {@code call}, which declares {@code declared}; null if its increments are pure additions or the probe
     * could not tell. Leaves the connection idle, with nothing changed.
     */
    static Mismatch run(
            Execute call,
            WorkerConnection connection,
            ArgumentTypes types,
            Map<String, Set<String>> declared,
            Increments increments)
            throws SQLException {
        String procedure = CallRunner.procedureAsRole(call.call(), false);
        try {
            Map<Increments.Cell, BigDecimal> first = deltas(
                    call,
                    connection,
                    types,
                    declared,
                    increments,
                    "BEGIN ISOLATION LEVEL READ COMMITTED; SAVEPOINT " + SAVEPOINT + "; " + procedure + "; "
                            + WriteSetCapture.READ_CHANGES + "; ROLLBACK TO SAVEPOINT " + SAVEPOINT);
            if (first.isEmpty()) {
                return null;
            }
            StringBuilder perturbed = new StringBuilder("SELECT set_config('gargamel.capture', 'off', true); ");
            for (Increments.Cell cell : first.keySet()) {
                perturbed
                        .append(perturbation(cell, increments.primaryKey(cell.table())))
                        .append("; ");
            }
            perturbed
                    .append("SELECT set_config('gargamel.capture', 'on', true); ")
                    .append(procedure)
                    .append("; ")
                    .append(WriteSetCapture.READ_CHANGES);
            Map<Increments.Cell, BigDecimal> second =
                    deltas(call, connection, types, declared, increments, perturbed.toString());
            for (Map.Entry<Increments.Cell, BigDecimal> cell : first.entrySet()) {
                BigDecimal other = second.get(cell.getKey());
                if (other == null || other.compareTo(cell.getValue()) != 0) {
                    return new Mismatch(cell.getKey(), cell.getValue(), other);
                }
            }
            for (Map.Entry<Increments.Cell, BigDecimal> cell : second.entrySet()) {
                if (!first.containsKey(cell.getKey())) {
                    return new Mismatch(cell.getKey(), null, cell.getValue());
                }
            }
            return null;
        } finally {
            connection.endTransaction(); // ROLLBACK: nothing the probe did survives, whatever happened
        }
    }

    /** Runs {@code sql} (ending with the read of the captured changes) and sums its declared deltas per cell. */
    private static Map<Increments.Cell, BigDecimal> deltas(
            Execute call,
            WorkerConnection connection,
            ArgumentTypes types,
            Map<String, Set<String>> declared,
            Increments increments,
            String sql)
            throws SQLException {
        String recorded = null;
        try (PreparedStatement statement = connection.jdbc().prepareStatement(sql)) {
            ProcedureCallBinder.bind(
                    connection.jdbc(),
                    statement,
                    call.call(),
                    types.arrayElementTypes(call.call().procedure()));
            boolean isResultSet = statement.execute();
            while (isResultSet || statement.getUpdateCount() != -1) {
                if (isResultSet) {
                    try (ResultSet rows = statement.getResultSet()) {
                        // The last result set is the read of the captured changes.
                        recorded = rows.next() ? rows.getString(1) : null;
                    }
                }
                isResultSet = statement.getMoreResults();
            }
        }
        return increments.split(WriteSetCapture.parse(recorded), declared).deltas();
    }

    /** Adds 1 to {@code cell} (a statement without parameters: the key is a literal). */
    private static String perturbation(Increments.Cell cell, List<String> key) {
        String table = quote(cell.table());
        String column = quote(cell.column());
        StringBuilder sql = new StringBuilder("UPDATE ")
                .append(table)
                .append(" AS x SET ")
                .append(column)
                .append(" = x.")
                .append(column)
                .append(" + 1 FROM jsonb_populate_record(null::")
                .append(table)
                .append(", ")
                .append(WriteSetCapture.literal(cell.key()))
                .append("::jsonb) AS r WHERE ");
        for (int i = 0; i < key.size(); i++) {
            sql.append(i > 0 ? " AND " : "")
                    .append("x.")
                    .append(quote(key.get(i)))
                    .append(" = r.")
                    .append(quote(key.get(i)));
        }
        return sql.toString();
    }
}
