package org.gargamel.classifier.validate;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
            // a table the rules only read is checked like any other
            String reads = RULES.replace(
                            "columns: [id, owner, balance]}",
                            "columns: [id, owner, balance]}\n  rate: {key: [currency], columns: [currency, rate]}")
                    + "    reads: [{table: rate, key: ['*'], columns: [rate]}]\n";
            RulesException read =
                    assertThrows(RulesException.class, () -> new LiveValidator().validate(rules(reads), connection));
            assertTrue(read.getMessage().contains("table public.rate does not exist"), read.getMessage());
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE rate (currency text PRIMARY KEY, rate numeric)");
            }
            new LiveValidator().validate(rules(reads), connection);
        }
    }

    private static final String FRESH_RULES = """
            tables:
              ticket:  {key: [id], columns: [id, note]}
              badge:   {key: [id], columns: [id, note]}
              stamp:   {key: [region, id], columns: [region, id, note]}
              journal: {key: [], columns: [note]}
              orders:  {key: [o_id], columns: [o_id, note]}
              counter: {key: [id], columns: [id, next_o_id]}
            procedures:
              issue:
                parameters:
                  - {name: note, type: text}
                writes:
                  - {insert: ticket, fresh: true}
                  - {insert: badge, fresh: true}
                  - {insert: stamp, fresh: true}
                  - {insert: journal, fresh: true}
              place:
                parameters:
                  - {name: note, type: text}
                writes:
                  - {update: counter, key: ["*"], columns: [next_o_id]}
                  - {insert: orders, fresh: true}
            """;

    /**
     * {@code fresh: true} is trusted only where the catalogue proves it: a bigserial key, an identity key, a composite
     * key with an identity part, a table without a unique key. A key that comes from nowhere the database knows is
     * refused, naming the rule's line, the table, the key and the fix; so is a unique index beside a provable key, a
     * cycling sequence, and a sequence of another schema (the nodes align only the schema's own).
     */
    @Test
    void aFreshInsertWhoseKeyTheCatalogueCannotProveUniqueIsRefused() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(1);
                Connection connection = cluster.connect(0)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("""
                        CREATE TABLE ticket (id bigserial PRIMARY KEY, note text);
                        CREATE TABLE badge (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, note text);
                        CREATE TABLE stamp (region integer, id bigint GENERATED BY DEFAULT AS IDENTITY, note text,
                                            PRIMARY KEY (region, id));
                        CREATE TABLE journal (note text);
                        CREATE TABLE orders (o_id integer PRIMARY KEY, note text);
                        CREATE TABLE counter (id integer PRIMARY KEY, next_o_id integer);
                        CREATE FUNCTION issue(note text) RETURNS void LANGUAGE sql AS 'SELECT 1';
                        CREATE FUNCTION place(note text) RETURNS void LANGUAGE sql AS 'SELECT 1';
                        """);
            }
            String ordersFromCounter = FRESH_RULES.replace(
                    "{insert: orders, fresh: true}", "{insert: orders, fresh: {counter: counter.next_o_id}}");
            new LiveValidator().validate(rules(ordersFromCounter), connection);

            RulesException orders = assertThrows(
                    RulesException.class, () -> new LiveValidator().validate(rules(FRESH_RULES), connection));
            String message = orders.getMessage();
            assertTrue(
                    message.contains("bank.yaml:22: the fresh insert of place into orders cannot be proved fresh: "
                            + "its primary key [o_id] takes no value from a sequence or identity column"),
                    message);
            assertTrue(message.contains("fresh: {counter: TABLE.COLUMN}"), message);
            assertFalse(message.contains("into ticket") || message.contains("into badge"), message);

            try (Statement statement = connection.createStatement()) {
                statement.execute("""
                        ALTER SEQUENCE ticket_id_seq CYCLE;
                        CREATE UNIQUE INDEX journal_note ON journal (note);
                        CREATE SCHEMA elsewhere;
                        CREATE SEQUENCE elsewhere.badge_ids;
                        ALTER TABLE badge ALTER COLUMN id DROP IDENTITY;
                        ALTER TABLE badge ALTER COLUMN id SET DEFAULT nextval('elsewhere.badge_ids');
                        """);
            }
            String refused = assertThrows(
                            RulesException.class,
                            () -> new LiveValidator().validate(rules(ordersFromCounter), connection))
                    .getMessage();
            assertTrue(refused.contains("bank.yaml:13: the fresh insert of issue into ticket"), refused);
            assertTrue(refused.contains("bank.yaml:14: the fresh insert of issue into badge"), refused);
            assertTrue(
                    refused.contains("bank.yaml:16: the fresh insert of issue into journal cannot be proved fresh: "
                            + "its unique key journal_note [note]"),
                    refused);
            assertFalse(refused.contains("into stamp") || refused.contains("into orders"), refused);
        }
    }

    /** Increments are applied in other orders at other replicas: only types that add exactly may take them. */
    @Test
    void anAddedColumnMustAddExactly() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(1);
                Connection connection = cluster.connect(0)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("""
                        CREATE TABLE tally (id int PRIMARY KEY, small int2, count int4, big int8, amount numeric,
                                            ratio float8, approx real, cash money, label text);
                        CREATE FUNCTION bump(tally_id int) RETURNS void LANGUAGE sql AS 'SELECT 1';
                        """);
            }
            String exact = """
                    tables:
                      tally: {key: [id], columns: [id, small, count, big, amount, ratio, approx, cash, label]}
                    procedures:
                      bump:
                        parameters:
                          - {name: tally_id, type: integer}
                        writes:
                          - {update: tally, key: [tally_id], columns: [ratio], add: [small, count, big, amount]}
                    """;
            new LiveValidator().validate(rules(exact), connection);

            String inexact = exact.replace(
                    "columns: [ratio], add: [small, count, big, amount]",
                    "add: [ratio, " + "approx, cash, label, count]");
            String message = assertThrows(
                            RulesException.class, () -> new LiveValidator().validate(rules(inexact), connection))
                    .getMessage();
            for (String column : new String[] {
                "ratio, which is float8", "approx, which is float4", "cash, which is money", "label, which is text"
            }) {
                assertTrue(
                        message.contains("bank.yaml:8: the update of tally by bump declares 'add' of column " + column),
                        message);
            }
            assertFalse(message.contains("column count"), message);
        }
    }
}
