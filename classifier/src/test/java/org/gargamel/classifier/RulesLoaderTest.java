package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Rules files and calls that must be rejected with the file, line, argument and problem named. */
@Tag("unit")
class RulesLoaderTest {
    private static final String HEADER = """
            tables:
              account: {key: [id], columns: [id, owner, balance]}
            procedures:
              deposit:
                parameters:
                  - {name: account_id, type: integer}
                  - {name: amount, type: numeric}
            """;

    private static RulesException rejected(String writes) {
        String yaml = HEADER + "    writes:\n" + writes;
        return assertThrows(
                RulesException.class,
                () -> RulesLoader.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "bank.yaml"));
    }

    @Test
    void aValidFileLoads() {
        String yaml = HEADER + "    writes:\n      - {update: account, key: [account_id], columns: [balance]}\n";
        ClassifierRules rules =
                RulesLoader.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "bank.yaml");
        ProcedureCall call = rules.parse("deposit(7, 10.50)");
        assertEquals(ProcedureCall.of("deposit", 7, new BigDecimal("10.50")), call);
        assertEquals(1, rules.writeKeys(call, Isolation.PSI).size());
    }

    @Test
    void errorsNameFileLineAndProblem() {
        RulesException table = rejected("      - {update: acount, key: [account_id], columns: [balance]}\n");
        assertTrue(
                table.getMessage().startsWith("bank.yaml:9: ")
                        && table.getMessage().contains("unknown table 'acount'"),
                table.getMessage());
        RulesException column = rejected("      - {update: account, key: [account_id], columns: [balanse]}\n");
        assertTrue(
                column.getMessage().contains("bank.yaml:9")
                        && column.getMessage().contains("no column 'balanse'"),
                column.getMessage());
        RulesException parameter = rejected("      - {update: account, key: [acount_id], columns: [balance]}\n");
        assertTrue(
                parameter.getMessage().contains("bank.yaml:9")
                        && parameter.getMessage().contains("'acount_id'")
                        && parameter.getMessage().contains("no declared parameter"),
                parameter.getMessage());
        RulesException coverage =
                rejected("      - {update: account, key: [account_id, amount], columns: [balance]}\n");
        assertTrue(coverage.getMessage().contains("must cover the primary key [id]"), coverage.getMessage());
        RulesException unknownKey = rejected("      - {update: account, key: [account_id], column: [balance]}\n");
        assertTrue(unknownKey.getMessage().contains("unknown key 'column'"), unknownKey.getMessage());
        RulesException noColumns = rejected("      - {update: account, key: [account_id]}\n");
        assertTrue(noColumns.getMessage().contains("must list the columns"), noColumns.getMessage());
        RulesException array = rejected("      - {update: account, key: [\"account_id[]\"], columns: [balance]}\n");
        assertTrue(array.getMessage().contains("not an array"), array.getMessage());
    }

    @Test
    void aFreshInsertSaysWhereItsKeyComesFrom() {
        String yaml = """
                tables:
                  account: {key: [id], columns: [id, owner, balance, next_entry]}
                  entry:   {key: [account_id, n], columns: [account_id, n, amount]}
                  ledger:  {key: [], columns: [account_id, amount]}
                procedures:
                  deposit:
                    parameters:
                      - {name: account_id, type: integer}
                      - {name: amount, type: numeric}
                    writes:
                      - {insert: entry, fresh: {counter: account.next_entry}}
                      - {update: account, key: [account_id], columns: [balance, next_entry]}
                      - {insert: ledger, fresh: true}
                """;
        ClassifierRules rules =
                RulesLoader.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "bank.yaml");
        List<WriteRule> writes = rules.procedure("deposit").writes();
        assertEquals(
                new FreshKey.Counter("account", "next_entry"), writes.get(0).freshKey());
        assertTrue(writes.get(0).fresh());
        assertEquals(FreshKey.GENERATED, writes.get(2).freshKey());
        assertNull(writes.get(1).freshKey());
        assertEquals(
                1,
                rules.writeKeys(rules.parse("deposit(7, 1.00)"), Isolation.PSI).size(),
                "fresh: no keys");

        RulesException undeclared = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream(yaml.replace("columns: [balance, next_entry]", "columns: [balance]")
                                .getBytes(StandardCharsets.UTF_8)),
                        "bank.yaml"));
        assertTrue(
                undeclared.getMessage().startsWith("bank.yaml:11: ")
                        && undeclared.getMessage().contains("counter account.next_entry")
                        && undeclared.getMessage().contains("declares no update of that column"),
                undeclared.getMessage());
        RulesException unknownColumn = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream(yaml.replace("counter: account.next_entry", "counter: account.nxt")
                                .getBytes(StandardCharsets.UTF_8)),
                        "bank.yaml"));
        assertTrue(
                unknownColumn.getMessage().startsWith("bank.yaml:11: ")
                        && unknownColumn.getMessage().contains("has no column 'nxt'"),
                unknownColumn.getMessage());
        RulesException malformed = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream(yaml.replace("counter: account.next_entry", "counter: next_entry")
                                .getBytes(StandardCharsets.UTF_8)),
                        "bank.yaml"));
        assertTrue(malformed.getMessage().contains("must be TABLE.COLUMN"), malformed.getMessage());
        RulesException neither = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream(
                                yaml.replace("fresh: true", "fresh: yes please").getBytes(StandardCharsets.UTF_8)),
                        "bank.yaml"));
        assertTrue(
                neither.getMessage().startsWith("bank.yaml:13: ")
                        && neither.getMessage().contains("{counter: TABLE.COLUMN}"),
                neither.getMessage());
    }

    @Test
    void typeAndNullabilityMistakesAreCaught() {
        String badType = HEADER.replace("type: numeric", "type: money") + "    writes:\n"
                + "      - {update: account, key: [account_id], columns: [balance]}\n";
        RulesException type = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream(badType.getBytes(StandardCharsets.UTF_8)), "bank.yaml"));
        assertTrue(
                type.getMessage().startsWith("bank.yaml:7: ")
                        && type.getMessage().contains("unknown parameter type 'money'"),
                type.getMessage());
        String nullable = HEADER.replace("type: integer}", "type: integer, nullable: true}") + "    writes:\n"
                + "      - {update: account, key: [account_id], columns: [balance]}\n";
        RulesException question = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream(nullable.getBytes(StandardCharsets.UTF_8)), "bank.yaml"));
        assertTrue(question.getMessage().contains("write 'account_id?'"), question.getMessage());
        RulesException malformed = assertThrows(
                RulesException.class,
                () -> RulesLoader.load(
                        new ByteArrayInputStream("tables: [unclosed".getBytes(StandardCharsets.UTF_8)), "bad.yaml"));
        assertTrue(malformed.getMessage().startsWith("bad.yaml: malformed YAML"), malformed.getMessage());
    }

    @Test
    void callsAreParsedAndCheckedAgainstTheirRule() {
        ClassifierRules rules = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
        ProcedureCall payment = rules.parse("payment(1, 2, 1, 2, NULL, 'O''BRIEN', 10.00, '2026-01-01 10:00:00')");
        assertNull(payment.arguments().get(4));
        assertEquals("O'BRIEN", payment.arguments().get(5));
        assertEquals(new BigDecimal("10.00"), payment.arguments().get(6));
        ProcedureCall newOrder =
                rules.parse("new_order(1, 3, 42, ARRAY[7,99], ARRAY[1,1], ARRAY[5,2], '2026-01-01 10:00:00')");
        assertEquals(List.of(7, 99), newOrder.arguments().get(3));
        assertEquals(newOrder, rules.parse(newOrder.toSql()), "toSql must parse back to the same call");
        assertEquals(payment, rules.parse(payment.toSql()));

        assertMessage(rules, "refund(1)", "unknown procedure 'refund'");
        assertMessage(rules, "delivery(1, 2)", "delivery takes 3 argument(s)");
        assertMessage(
                rules, "delivery('one', 2, '2026-01-01 10:00:00')", "argument 1 (w_id, integer) expects a number");
        assertMessage(rules, "delivery(NULL, 2, '2026-01-01 10:00:00')", "argument 1 (w_id, integer) must not be NULL");
        assertMessage(
                rules, "delivery(1, 2, '2026-13-45')", "argument 3 (delivery_d, timestamp) cannot take '2026-13-45'");
        assertMessage(rules, "delivery(1, 2, '2026-01-01 10:00:00'", "expected ')'");
        assertMessage(rules, "new_order(1, 3, 42, ARRAY[7,99], ARRAY[1], ARRAY[5,2], '2026-01-01 10:00:00')", null);
    }

    private static void assertMessage(ClassifierRules rules, String call, String expected) {
        RulesException e =
                assertThrows(RulesException.class, () -> rules.writeKeys(rules.parse(call), Isolation.PSI), call);
        if (expected != null) {
            assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
        } else {
            assertTrue(e.getMessage().contains("zipped"), e.getMessage());
        }
    }
}
