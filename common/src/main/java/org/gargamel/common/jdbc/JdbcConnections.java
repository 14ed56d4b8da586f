package org.gargamel.common.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/** Plain JDBC connections to a PostgreSQL server given by URL, for tools (loader, checker, provisioning). */
public final class JdbcConnections {
    /** A server that does not answer within this long is reported as unreachable instead of hanging a command. */
    public static final int CONNECT_TIMEOUT_SECONDS = 10;

    private JdbcConnections() {}

    /** Connects with a connect timeout and application name {@code gargamel} (visible in pg_stat_activity). */
    public static Connection connect(String url) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        properties.setProperty("ApplicationName", "gargamel");
        return DriverManager.getConnection(url, properties);
    }
}
