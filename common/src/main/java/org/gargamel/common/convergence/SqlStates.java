package org.gargamel.common.convergence;

import java.sql.SQLException;

/** Keeps the SQLSTATE in error messages: it says whether a table is missing or the server went away. */
public final class SqlStates {
    private SqlStates() {}

    public static String describe(SQLException e) {
        return e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")";
    }
}
