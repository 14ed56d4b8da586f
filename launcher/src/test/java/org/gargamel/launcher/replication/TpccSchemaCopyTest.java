package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.node.transfer.SchemaCopy;
import org.gargamel.node.transfer.SchemaDigest;
import org.gargamel.node.transfer.StateTransfer;
import org.gargamel.node.writeset.ReplicaState;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.TpccLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A new, empty replica takes a loaded TPC-C database, schema and data, by state transfer (docs/node.md, Rebuild): the
 * copy has the same schema digest, the same nine tables row for row, and its procedures run.
 */
@Tag("integration")
class TpccSchemaCopyTest {
    private static PostgresCluster servers;

    @BeforeAll
    static void loadOne() throws Exception {
        servers = PostgresCluster.embedded(2);
        new TpccLoader(new LoadOptions(1, 11, 2), LoadProgress.toStandardError()).load(servers.jdbcUrl(0));
        try (Connection peer = servers.connect(0)) {
            peer.setAutoCommit(false);
            ReplicaState.install(peer);
            try (Statement statement = peer.createStatement()) {
                statement.execute("UPDATE gargamel.replica_state SET applied_index = 7, log_id = 'tpcc-log'");
            }
            peer.commit();
        }
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void anEmptyDatabaseTakesALoadedTpccDatabaseSchemaAndData() throws Exception {
        StateTransfer.Copied copied;
        try (Connection local = servers.connect(1)) {
            local.setAutoCommit(false);
            assertTrue(SchemaCopy.isEmpty(local, "public"));
            ReplicaState.install(local);
            local.commit();
            copied = StateTransfer.copy(servers.jdbcUrl(0), local, "public", true);
        }

        assertTrue(copied.tables() >= 9, copied.describe());
        assertTrue(copied.definitions() > 20, copied.describe());
        assertEquals(digest(0), digest(1), "the same schema");
        ConvergenceReport report = new TableChecksums(CheckRunner.TABLES).compare(servers.jdbcUrls());
        assertTrue(report.identical(), "the nine tables differ: " + report.differingTables());
        assertTrue(report.table("stock").checksums().get(1).rows() > 0, "the data came too");
        try (Connection local = servers.connect(1)) {
            assertFalse(SchemaCopy.isEmpty(local, "public"));
            assertEquals(7, ReplicaState.appliedIndex(local));
        }
        String stockLevel = "SELECT stock_level(1, 1, 15)";
        assertEquals(firstValue(0, stockLevel), firstValue(1, stockLevel), "a procedure runs on the copy");
        String indexes =
                "SELECT string_agg(indexdef, E'\\n' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public'";
        assertEquals(firstValue(0, indexes), firstValue(1, indexes), "the same indexes");
    }

    private static String digest(int server) throws Exception {
        try (Connection connection = servers.connect(server)) {
            return SchemaDigest.of(connection, "public");
        }
    }

    private static String firstValue(int server, String sql) throws Exception {
        try (Connection connection = servers.connect(server);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
