package org.gargamel.tpcc.check;

import java.sql.SQLException;

/** Keeps the SQLSTATE in error messages: it says whether a table is missing or the server went away. */
final class SqlStates {
    private SqlStates() {}

    static String describe(SQLException e) {
        return e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")";
    }
}
