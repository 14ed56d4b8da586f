package org.gargamel.common.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Ends a failed transaction without hiding why it failed. */
public final class Rollbacks {
    private Rollbacks() {}

    /**
     * Rolls back the transaction {@code failure} broke off. If the rollback fails too, its exception is added to
     * {@code failure} as suppressed and {@code failure} remains the one to throw: when the server is gone, HikariCP has
     * already closed the connection and answers the rollback with a "Connection is closed" of its own, without an
     * SQLSTATE, and a caller that threw that instead would hide the class-08 error that says the database was lost.
     */
    public static void after(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailed) {
            failure.addSuppressed(rollbackFailed);
        }
    }
}
