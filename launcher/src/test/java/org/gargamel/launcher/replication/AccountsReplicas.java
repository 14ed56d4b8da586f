package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.gargamel.provisioning.PostgresCluster;

/**
 * A small application that is not TPC-C (accounts-schema.sql, accounts-rules.yaml: own schema, plpgsql procedures,
 * rules with a declared read) on three embedded PostgreSQL replicas, for tests that run the real scheduler and nodes
 * on it ({@link InProcessGargamel}).
 */
final class AccountsReplicas implements AutoCloseable {
    static final int REPLICAS = 3;
    /** audit's declared read, as it stands in accounts-rules.yaml. */
    static final String AUDIT_READS = "    reads:\n      - {table: account, key: [id], columns: [balance]}\n";

    final PostgresCluster servers = PostgresCluster.embedded(REPLICAS);

    /**
     * The schema and data afresh on every replica, and nothing left of an earlier cluster on them (schema
     * {@code gargamel}: capture, the position in a write-set log); a node installs it again when it starts.
     */
    void reset() throws IOException, SQLException {
        String sql = resource("accounts-schema.sql");
        for (int i = 0; i < REPLICAS; i++) {
            try (Connection connection = servers.connect(i);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP SCHEMA IF EXISTS gargamel CASCADE");
                statement.execute(sql);
            }
        }
    }

    /** The rules file, written into {@code directory}: as shipped, or without audit's reads. */
    static String rules(Path directory, boolean declareReads) throws IOException {
        String rules = resource("accounts-rules.yaml");
        String written = declareReads ? rules : rules.replace(AUDIT_READS, "");
        if (!declareReads) {
            assertNotEquals(rules, written, "accounts-rules.yaml declares audit's reads");
        }
        Path file = directory.resolve(declareReads ? "accounts-rules.yaml" : "accounts-rules-without-reads.yaml");
        Files.writeString(file, written, StandardCharsets.UTF_8);
        return file.toString();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = AccountsReplicas.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The first column of the first row of {@code query} on replica {@code replica}, as text. */
    String query(int replica, String query) throws SQLException {
        try (Connection connection = servers.connect(replica);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(query)) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    /** Account {@code id}'s balance on replica {@code replica}, e.g. {@code 100.00}. */
    String balance(int replica, int id) {
        try {
            return query(replica, "SELECT balance FROM account WHERE id = " + id);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read account " + id + " on replica " + replica, e);
        }
    }

    /** Every account and label of one replica, in key order. */
    String dump(int replica) throws SQLException {
        return query(
                replica,
                "SELECT string_agg(id || ' ' || balance || ' ' || audits, ', ' ORDER BY id) "
                        + "|| ' / ' || (SELECT string_agg(name || ' ' || uses, ', ' ORDER BY name) FROM label) "
                        + "FROM account");
    }

    void assertConverged() throws SQLException {
        String first = dump(0);
        for (int replica = 1; replica < REPLICAS; replica++) {
            assertEquals(first, dump(replica), "replica " + replica + " differs from replica 0");
        }
    }

    @Override
    public void close() {
        servers.close();
    }
}
