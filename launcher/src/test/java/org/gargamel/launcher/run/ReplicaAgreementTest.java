package org.gargamel.launcher.run;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What serve checks of existing databases before it starts a cluster on them: the same schema (a function one lacks
 * is named), then the same data (the differing table is named); identical databases pass.
 */
@Tag("integration")
class ReplicaAgreementTest {
    private static final String SCHEMA = """
            CREATE TABLE account (id int PRIMARY KEY, balance numeric(12,2) NOT NULL);
            INSERT INTO account VALUES (1, 10.00), (2, 20.00);
            """;
    private static final String DEPOSIT = """
            CREATE FUNCTION deposit(p_id int, p_amount numeric) RETURNS numeric LANGUAGE sql AS
            'UPDATE account SET balance = balance + p_amount WHERE id = p_id RETURNING balance'
            """;

    private final PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @Test
    void differingSchemasAndDataAreRefusedNamingTheDifference() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(2)) {
            List<String> urls = cluster.jdbcUrls();
            execute(cluster, 0, SCHEMA + DEPOSIT);
            execute(cluster, 1, SCHEMA);
            CommandFailedException schema =
                    assertThrows(CommandFailedException.class, () -> ReplicaAgreement.requireIdentical(urls, err));
            assertTrue(schema.getMessage().contains("the schema of"), schema.getMessage());
            assertTrue(schema.getMessage().contains("it lacks [function deposit(p_id integer"), schema.getMessage());

            execute(cluster, 1, DEPOSIT + ";UPDATE account SET balance = 0 WHERE id = 2");
            CommandFailedException data =
                    assertThrows(CommandFailedException.class, () -> ReplicaAgreement.requireIdentical(urls, err));
            assertTrue(data.getMessage().contains("different data in table(s) [account]"), data.getMessage());

            execute(cluster, 1, "UPDATE account SET balance = 20.00 WHERE id = 2");
            assertDoesNotThrow(() -> ReplicaAgreement.requireIdentical(urls, err));
        }
    }

    @Test
    void theDifferenceNamesWhatIsMissingAndWhatIsExtra() {
        assertNull(ReplicaAgreement.difference(List.of("a", "b"), List.of("a", "b")));
        assertEquals(
                "it lacks [b]; it has besides [c]", ReplicaAgreement.difference(List.of("a", "b"), List.of("a", "c")));
    }

    private static void execute(PostgresCluster cluster, int index, String sql) throws Exception {
        try (Connection connection = cluster.connect(index);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
