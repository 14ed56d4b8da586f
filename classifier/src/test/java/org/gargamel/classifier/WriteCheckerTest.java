package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.List;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The soundness checker by hand: what covers a change, what does not, and how a miss is named. */
@Tag("unit")
class WriteCheckerTest {
    private static final ClassifierRules RULES =
            RulesLoader.load(new ByteArrayInputStream("""
            tables:
              account: {key: [id], columns: [id, balance, audits]}
              label: {key: [name], columns: [name, uses]}
              entry: {key: [account_id, at], columns: [account_id, at, amount]}
              ticket: {key: [id], columns: [id, note]}
              log: {key: [], columns: [line]}
            procedures:
              deposit:
                parameters:
                  - {name: id, type: integer}
                  - {name: amount, type: numeric}
                writes:
                  - {update: account, key: [id], columns: [balance]}
              deposit_each:
                parameters:
                  - {name: ids, type: "integer[]"}
                writes:
                  - {update: account, key: ["ids[]"], columns: [balance]}
              touch_any:
                parameters: []
                writes:
                  - {update: account, key: ["*"], columns: [audits]}
              use_label:
                parameters:
                  - {name: name, type: text}
                writes:
                  - {update: label, key: [name], columns: [uses]}
              book:
                parameters:
                  - {name: id, type: integer}
                  - {name: at, type: timestamp}
                writes:
                  - {insert: entry, key: [id, at]}
                  - {delete: label, key: ["*"]}
                  - {insert: ticket, fresh: true}
                  - {insert: log, fresh: true}
            """.getBytes(StandardCharsets.UTF_8)), "bank.yaml");

    private static List<UnsoundWrite> check(Isolation isolation, ProcedureCall call, RowChange... changes) {
        return new WriteChecker(RULES, isolation).check(call, List.of(changes));
    }

    private static RowChange update(String table, String row) {
        return new RowChange(table, Operation.UPDATE, row);
    }

    @Test
    void anUpdateOfTheDeclaredRowAndColumnIsCovered() {
        ProcedureCall deposit = ProcedureCall.of("deposit", 3, new BigDecimal("1.00"));
        assertSame(
                List.of(),
                check(Isolation.PSI, deposit, update("account", "{\"id\": 3, \"balance\": 101.00}")),
                "nothing allocated when every change is covered");
        assertEquals(List.of(), check(Isolation.PSI, deposit));
    }

    @Test
    void anUndeclaredColumnIsAMissInPsiButNotInSi() {
        ProcedureCall deposit = ProcedureCall.of("deposit", 3, new BigDecimal("1.00"));
        RowChange both = update("account", "{\"id\": 3, \"balance\": 101.00, \"audits\": 1}");
        List<UnsoundWrite> unsound = check(Isolation.PSI, deposit, both);
        assertEquals(1, unsound.size());
        UnsoundWrite miss = unsound.get(0);
        assertEquals("deposit", miss.procedure());
        assertEquals("account", miss.table());
        assertEquals("account(id=3)", miss.row());
        assertEquals("audits", miss.column());
        assertEquals("update", miss.operation());
        assertEquals("bank.yaml:13 (update account key [id] columns [balance])", miss.rule());
        assertTrue(miss.describe().contains("deposit wrote account(id=3) column audits"), miss.describe());
        assertEquals(List.of(), check(Isolation.SI, deposit, both), "SI keys are rows");
    }

    @Test
    void anotherRowIsAMissInBothModes() {
        ProcedureCall deposit = ProcedureCall.of("deposit", 3, new BigDecimal("1.00"));
        for (Isolation isolation : Isolation.values()) {
            List<UnsoundWrite> unsound =
                    check(isolation, deposit, update("account", "{\"id\": 4, \"balance\": 101.00}"));
            assertEquals(1, unsound.size(), isolation.toString());
            assertEquals("account(id=4)", unsound.get(0).row());
            assertEquals("balance", unsound.get(0).column());
        }
    }

    @Test
    void wildcardsAndArrayElementsDesignateTheirRows() {
        assertEquals(
                List.of(),
                check(
                        Isolation.PSI,
                        ProcedureCall.of("touch_any"),
                        update("account", "{\"id\": 17, \"audits\": 2}"),
                        update("account", "{\"id\": 1, \"audits\": 2}")));
        ProcedureCall each = ProcedureCall.of("deposit_each", List.of(1, 5));
        assertEquals(List.of(), check(Isolation.PSI, each, update("account", "{\"id\": 5, \"balance\": 3}")));
        assertEquals(
                1,
                check(Isolation.PSI, each, update("account", "{\"id\": 2, \"balance\": 3}"))
                        .size());
    }

    @Test
    void textNumericAndTimestampKeysCompareAsTheClassifierDoes() {
        String name = "r\u00e9d \"q\"\n";
        ProcedureCall label = ProcedureCall.of("use_label", name);
        String json = "{\"name\": \"r\\u00e9d \\\"q\\\"\\n\", \"uses\": 1}";
        assertEquals(List.of(), check(Isolation.PSI, label, update("label", json)));
        assertEquals(
                1,
                check(Isolation.PSI, label, update("label", "{\"name\": \"red\", \"uses\": 1}"))
                        .size());
        assertEquals(
                KeyParts.toLong(name),
                WriteChecker.textHash(json, json.indexOf('"', 8) + 1, json.indexOf(", \"uses\"") - 1));
        ProcedureCall book = ProcedureCall.of("book", 3, LocalDateTime.parse("2026-01-01T10:00:00.5"));
        assertEquals(
                List.of(),
                check(
                        Isolation.PSI,
                        book,
                        new RowChange(
                                "entry",
                                Operation.INSERT,
                                "{\"account_id\":3,\"at\":\"2026-01-01T10:00:00.5\",\"amount\":1.50}")));
        assertEquals(
                1,
                check(
                                Isolation.PSI,
                                book,
                                new RowChange(
                                        "entry",
                                        Operation.INSERT,
                                        "{\"account_id\":3,\"at\":\"2026-01-01T10:00:01\",\"amount\":1.50}"))
                        .size());
    }

    @Test
    void insertsAndDeletesNeedWholeRowWritesOrFreshInserts() {
        ProcedureCall book = ProcedureCall.of("book", 3, LocalDateTime.parse("2026-01-01T10:00:00"));
        assertEquals(
                List.of(),
                check(
                        Isolation.PSI,
                        book,
                        new RowChange("ticket", Operation.INSERT, "{\"id\":77,\"note\":\"x\"}"),
                        new RowChange("log", Operation.INSERT, "{\"line\":\"x\"}"),
                        new RowChange("label", Operation.DELETE, "{\"name\" : \"red\"}"),
                        // a row the call inserted itself, fresh: no other call can hold it
                        update("ticket", "{\"id\": 77, \"note\": \"y\"}")));
        List<UnsoundWrite> unsound = check(
                Isolation.PSI,
                ProcedureCall.of("deposit", 3, BigDecimal.ONE),
                new RowChange("account", Operation.INSERT, "{\"id\":3,\"balance\":0,\"audits\":0}"),
                new RowChange("account", Operation.DELETE, "{\"id\" : 3}"),
                update("ticket", "{\"id\": 77, \"note\": \"y\"}"),
                new RowChange("nowhere", Operation.INSERT, "{\"x\":1}"));
        assertEquals(
                List.of("account insert *", "account delete *", "ticket update note", "nowhere insert *"),
                unsound.stream()
                        .map(miss -> miss.table() + " " + miss.operation().substring(0, 6) + " " + miss.column())
                        .toList());
        assertEquals("bank.yaml:9 (procedure deposit)", unsound.get(2).rule(), "no write of ticket: the procedure");
        assertTrue(unsound.get(3).operation().contains("a table the rules do not declare"));
    }

    @Test
    void anUpdateRuleDoesNotCoverAnInsertOfItsRow() {
        List<UnsoundWrite> unsound = check(
                Isolation.SI,
                ProcedureCall.of("deposit", 3, BigDecimal.ONE),
                new RowChange("account", Operation.INSERT, "{\"id\":3,\"balance\":0,\"audits\":0}"));
        assertEquals(1, unsound.size());
        assertEquals(
                "bank.yaml:13 (update account key [id] columns [balance])",
                unsound.get(0).rule());
    }

    @Test
    void rowKeysBecomeTheClassifiersParts() {
        String json = "[12, -7, 1234567890123456789, 10.50, 1e3]";
        assertEquals(12, WriteChecker.toPart(json, 1, 3, 0));
        assertEquals(-7, WriteChecker.toPart(json, 5, 7, 0));
        assertEquals(1234567890123456789L, WriteChecker.toPart(json, 9, 28, 0));
        assertEquals(KeyParts.toLong(new BigDecimal("10.5")), WriteChecker.toPart(json, 30, 35, 1));
        assertEquals(1000, WriteChecker.toPart(json, 37, 40, 1));
        assertEquals(KeyParts.toLong(1000), KeyParts.toLong(new BigDecimal("1e3")));
    }
}
