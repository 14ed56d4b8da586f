package org.gargamel.classifier.validate;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.RulesException;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Rules against a real catalogue: what matches passes, every mismatch is named. */
@Tag("integration")
class LiveValidatorTest {
    private static final String RULES = """
            tables:
              account: {key: [id], columns: [id, owner, balance]}
            procedures:
              deposit:
                parameters:
                  - {name: account_id, type: integer}
                  - {name: amount, type: numeric}
                writes:
                  - {update: account, key: [account_id], columns: [balance]}
            """;

    private static ClassifierRules rules(String yaml) {
        return RulesLoader.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "bank.yaml");
    }

    @Test
    void matchingRulesPassAndMismatchesAreNamed() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(1);
                Connection connection = cluster.connect(0)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE account (id int PRIMARY KEY, owner text, balance numeric)");
                statement.execute("""
                        CREATE FUNCTION deposit(account_id int, amount numeric) RETURNS void LANGUAGE sql
                        AS 'UPDATE account SET balance = balance + amount WHERE id = account_id'""");
            }
            new LiveValidator().validate(rules(RULES), connection);

            RulesException signature = assertThrows(
                    RulesException.class,
                    () -> new LiveValidator()
                            .validate(rules(RULES.replace("type: numeric", "type: integer")), connection));
            assertTrue(
                    signature.getMessage().contains("procedure deposit has signature(s) [[int4, numeric]]"),
                    signature.getMessage());
            RulesException missing = assertThrows(
                    RulesException.class,
                    () -> new LiveValidator()
                            .validate(
                                    rules(RULES.replace("owner, balance", "owner, balance, opened")
                                            .replace("deposit:", "withdraw:")),
                                    connection));
            assertTrue(
                    missing.getMessage().contains("table account has no column opened")
                            && missing.getMessage().contains("procedure withdraw does not exist"),
                    missing.getMessage());
            RulesException key = assertThrows(
                    RulesException.class,
                    () -> new LiveValidator()
                            .validate(
                                    rules(RULES.replace("key: [id]", "key: [owner]")
                                            .replace("key: [account_id]", "key: [account_id]")),
                                    connection));
            assertTrue(
                    key.getMessage().contains("has primary key [id] but the rules declare [owner]"), key.getMessage());
        }
    }
}
