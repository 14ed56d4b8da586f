package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.classifier.rules.RulesLoader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code add:} on an update (docs/classifier.md, Increments): what loads, what the API returns, what is refused. */
@Tag("unit")
class IncrementRulesTest {
    private static final String RULES = """
            tables:
              account: {key: [id], columns: [id, owner, balance, deposits, note]}
              branch:  {key: [id], columns: [id, total]}
            procedures:
              deposit:
                parameters:
                  - {name: account_id, type: integer}
                  - {name: amount, type: numeric}
                writes:
                  - {update: account, key: [account_id], columns: [note], add: [balance, deposits]}
                  - {update: branch, key: ["*"], add: [total]}
              rename:
                parameters:
                  - {name: account_id, type: integer}
                writes:
                  - {update: account, key: [account_id], columns: [owner]}
              audit:
                read-only: true
                parameters: []
            """;

    private static ClassifierRules load(String yaml) {
        return RulesLoader.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "bank.yaml");
    }

    private static String rejected(String yaml) {
        return assertThrows(RulesException.class, () -> load(yaml)).getMessage();
    }

    @Test
    void addedColumnsAreKeptApartFromPlainOnesAndTouched() {
        ClassifierRules rules = load(RULES);
        List<WriteRule> writes = rules.procedure("deposit").writes();
        assertEquals(Set.of("note"), writes.get(0).columns());
        assertEquals(Set.of("balance", "deposits"), writes.get(0).added());
        assertEquals(Set.of("note", "balance", "deposits"), writes.get(0).touchedColumns());
        assertEquals(Set.of(), writes.get(1).columns(), "an update may declare only 'add'");
        assertEquals(Set.of("total"), writes.get(1).touchedColumns());
        assertEquals(Set.of(), rules.procedure("rename").writes().get(0).added());
    }

    @Test
    void incrementsAreListedPerProcedureAndOverAll() {
        ClassifierRules rules = load(RULES);
        assertEquals(
                Map.of("account", Set.of("balance", "deposits"), "branch", Set.of("total")),
                rules.increments("deposit"));
        assertEquals(Map.of(), rules.increments("rename"));
        assertEquals(Map.of(), rules.increments("audit"));
        assertEquals(Map.of(), rules.increments("no_such_procedure"));
        assertEquals(
                Map.of("account", Set.of("balance", "deposits"), "branch", Set.of("total")), rules.incrementColumns());
        assertThrows(
                UnsupportedOperationException.class,
                () -> rules.incrementColumns().get("account").add("owner"));
        assertThrows(
                UnsupportedOperationException.class,
                () -> rules.increments("deposit").put("x", Set.of()));
    }

    @Test
    void theDigestTellsAnIncrementFromAPlainWrite() {
        String plain = RULES.replace("columns: [note], add: [balance, deposits]", "columns: [note, balance, deposits]")
                .replace("add: [total]", "columns: [total]");
        assertNotEquals(load(RULES).digest(), load(plain).digest());
        assertEquals(Map.of(), load(plain).incrementColumns());
    }

    @Test
    void aColumnBothWrittenAndAddedIsRefusedAtItsLine() {
        String message = rejected(RULES.replace("columns: [note], add:", "columns: [balance], add:"));
        assertTrue(message.startsWith("bank.yaml:10: ") && message.contains("column 'balance' of account"), message);
        assertTrue(message.contains("both in 'columns' and in 'add'"), message);
    }

    @Test
    void addOnAnythingButAnUpdateIsRefused() {
        String insert = rejected(RULES.replace(
                "{update: branch, key: [\"*\"], add: [total]}", "{insert: branch, key: [account_id], add: [total]}"));
        assertTrue(insert.startsWith("bank.yaml:11: ") && insert.contains("an insert writes whole rows"), insert);
        String delete = rejected(RULES.replace(
                "{update: branch, key: [\"*\"], add: [total]}", "{delete: branch, key: [account_id], add: [total]}"));
        assertTrue(delete.startsWith("bank.yaml:11: ") && delete.contains("a delete writes whole rows"), delete);
        String read = rejected(RULES.replace(
                "columns: [owner]}\n",
                "columns: [owner]}\n    reads:\n      - {table: account, key: [account_id], add: [balance]}\n"));
        assertTrue(
                read.startsWith("bank.yaml:18: ")
                        && read.contains("a read of rename")
                        && read.contains("'add' belongs to an update"),
                read);
    }

    @Test
    void anUnknownAddedColumnIsRefused() {
        String message = rejected(RULES.replace("add: [total]", "add: [totl]"));
        assertTrue(
                message.startsWith("bank.yaml:11: ")
                        && message.contains("a write of deposit")
                        && message.contains("table branch has no column 'totl'"),
                message);
    }

    @Test
    void anUpdateWithNeitherColumnsNorAddIsRefused() {
        String message = rejected(
                RULES.replace("{update: branch, key: [\"*\"], add: [total]}", "{update: branch, " + "key: [\"*\"]}"));
        assertTrue(message.startsWith("bank.yaml:11: ") && message.contains("must list the columns"), message);
        String empty = rejected(RULES.replace("add: [total]", "add: []"));
        assertTrue(empty.startsWith("bank.yaml:11: ") && empty.contains("must list the columns"), empty);
    }

    /** A counter's value becomes a key: two increments of it must not run side by side, so it cannot be added. */
    @Test
    void aFreshInsertsCounterCannotBeAnIncrement() {
        String message = rejected("""
                tables:
                  account: {key: [id], columns: [id, next_entry]}
                  entry:   {key: [account_id, n], columns: [account_id, n]}
                procedures:
                  deposit:
                    parameters:
                      - {name: account_id, type: integer}
                    writes:
                      - {update: account, key: [account_id], add: [next_entry]}
                      - {insert: entry, fresh: {counter: account.next_entry}}
                """);
        assertTrue(
                message.startsWith("bank.yaml:10: ")
                        && message.contains("counter account.next_entry")
                        && message.contains("declares 'add'"),
                message);
    }
}
