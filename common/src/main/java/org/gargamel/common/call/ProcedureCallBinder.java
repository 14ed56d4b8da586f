package org.gargamel.common.call;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDateTime;
import java.util.List;

/**
 * Turns a {@link ProcedureCall} into {@code SELECT * FROM procedure(?, ...)} with each argument bound
 * with its SQL type, so that PostgreSQL resolves the same function signature on every replica.
 */
public final class ProcedureCallBinder {
    private ProcedureCallBinder() {}

    /** The statement text for a call of {@code procedure} with {@code arity} arguments. */
    public static String sql(String procedure, int arity) {
        StringBuilder sql =
                new StringBuilder("SELECT * FROM ").append(procedure).append('(');
        for (int i = 0; i < arity; i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        return sql.append(')').toString();
    }

    public static PreparedStatement prepare(Connection connection, ProcedureCall call) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(
                sql(call.procedure(), call.arguments().size()));
        try {
            bind(connection, statement, call);
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    public static void bind(Connection connection, PreparedStatement statement, ProcedureCall call)
            throws SQLException {
        bind(connection, statement, call, List.of());
    }

    /**
     * Binds the arguments; {@code declaredElementTypes} gives, by argument position, the SQL element type of array
     * parameters as the procedure declares them (null or absent: inferred from the elements). Without it an array whose
     * elements are all NULL cannot be bound, since nothing tells its type.
     */
    public static void bind(
            Connection connection, PreparedStatement statement, ProcedureCall call, List<String> declaredElementTypes)
            throws SQLException {
        List<Object> arguments = call.arguments();
        for (int i = 0; i < arguments.size(); i++) {
            Object value = arguments.get(i);
            int index = i + 1;
            if (value == null) {
                // Unknown type: PostgreSQL infers it from the function signature.
                statement.setNull(index, Types.NULL);
            } else if (value instanceof Integer integer) {
                statement.setInt(index, integer);
            } else if (value instanceof Long number) {
                statement.setLong(index, number);
            } else if (value instanceof BigDecimal decimal) {
                statement.setBigDecimal(index, decimal);
            } else if (value instanceof String text) {
                statement.setString(index, text);
            } else if (value instanceof LocalDateTime timestamp) {
                statement.setObject(index, timestamp);
            } else if (value instanceof List<?> list) {
                String declared = i < declaredElementTypes.size() ? declaredElementTypes.get(i) : null;
                statement.setArray(
                        index,
                        connection.createArrayOf(
                                declared != null ? declared : arrayType(call, i, list), list.toArray()));
            } else {
                throw new IllegalArgumentException("argument " + index + " of " + call.procedure()
                        + " has unsupported type " + value.getClass().getName());
            }
        }
    }

    private static String arrayType(ProcedureCall call, int index, List<?> list) {
        for (Object element : list) {
            if (element instanceof Integer) {
                return "integer";
            } else if (element instanceof Long) {
                return "bigint";
            } else if (element instanceof BigDecimal) {
                return "numeric";
            } else if (element instanceof String) {
                return "text";
            } else if (element instanceof LocalDateTime) {
                return "timestamp";
            }
        }
        if (list.isEmpty()) {
            return "integer";
        }
        throw new IllegalArgumentException("array argument " + (index + 1) + " of " + call.procedure()
                + " holds only NULLs; its element type cannot be inferred");
    }
}
