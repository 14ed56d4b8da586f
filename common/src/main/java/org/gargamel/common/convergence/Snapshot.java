package org.gargamel.common.convergence;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A read-only REPEATABLE READ transaction, so that every query of a check sees one state of the
 * database, with the session settings that fix how values are rendered as text (timestamps in the
 * checksums and in violation examples must not depend on the server's or the user's defaults).
 */
public final class Snapshot implements AutoCloseable {
    private final Connection connection;
    private final String database;
    private final boolean autoCommit;
    private boolean finished;

    private Snapshot(Connection connection, String database, boolean autoCommit) {
        this.connection = connection;
        this.database = database;
        this.autoCommit = autoCommit;
    }

    public static Snapshot begin(Connection connection, String database) {
        try {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            Snapshot snapshot = new Snapshot(connection, database, autoCommit);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                statement.execute("SET LOCAL DateStyle = 'ISO, YMD'");
                statement.execute("SET LOCAL IntervalStyle = 'postgres'");
                statement.execute("SET LOCAL TimeZone = 'UTC'");
                statement.execute("SET LOCAL extra_float_digits = 3");
                statement.execute("SET LOCAL bytea_output = 'hex'");
            } catch (SQLException e) {
                snapshot.close();
                throw e;
            }
            return snapshot;
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot open a read-only snapshot of " + database + ": " + e.getMessage() + SqlStates.describe(e),
                    e);
        }
    }

    public void commit() {
        try {
            connection.commit();
            finished = true;
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot end the read-only snapshot of " + database + ": " + e.getMessage() + SqlStates.describe(e),
                    e);
        }
    }

    @Override
    public void close() {
        try {
            if (!finished) {
                connection.rollback();
            }
            connection.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            // The check already failed or succeeded; a connection that cannot roll back is closed by its owner.
        }
    }
}
