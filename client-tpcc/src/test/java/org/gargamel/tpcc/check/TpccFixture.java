package org.gargamel.tpcc.check;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * The hand-made TPC-C database of fixture.sql, installed once per server as a template database so that
 * each test case gets a fresh copy with CREATE DATABASE ... TEMPLATE in a fraction of a second.
 */
final class TpccFixture {
    static final String TEMPLATE = "tpcc_fixture";

    private TpccFixture() {}

    /** Creates the template database on the server of {@code serverUrl} (a URL of its postgres database). */
    static void installTemplate(String serverUrl) throws SQLException {
        execute(serverUrl, "CREATE DATABASE " + TEMPLATE);
        execute(
                databaseUrl(serverUrl, TEMPLATE),
                resource("/org/gargamel/tpcc/schema/schema.sql") + resource("/org/gargamel/tpcc/check/fixture.sql"));
    }

    /** A fresh copy of the fixture named {@code name}; returns its URL. */
    static String copy(String serverUrl, String name) throws SQLException {
        execute(serverUrl, "DROP DATABASE IF EXISTS " + name);
        execute(serverUrl, "CREATE DATABASE " + name + " TEMPLATE " + TEMPLATE);
        return databaseUrl(serverUrl, name);
    }

    static void execute(String url, String sql) throws SQLException {
        try (Connection connection = JdbcConnections.connect(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The URL of database {@code name} on the server of {@code serverUrl} (.../postgres?user=...). */
    static String databaseUrl(String serverUrl, String name) {
        String replaced = serverUrl.replaceFirst("/postgres\\?", "/" + name + "?");
        if (replaced.equals(serverUrl)) {
            throw new IllegalArgumentException("expected a URL of the postgres database, got " + serverUrl);
        }
        return replaced;
    }

    private static String resource(String path) {
        try (InputStream in = Objects.requireNonNull(TpccFixture.class.getResourceAsStream(path), path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
