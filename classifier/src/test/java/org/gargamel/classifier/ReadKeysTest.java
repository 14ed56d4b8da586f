package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.gargamel.classifier.rules.RulesLoader;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A procedure's {@code reads:} (docs/classifier.md, What conflicts): a read key conflicts with every write of the same
 * cell (PSI: the same row and a shared column; SI: the same row), with other reads of a cell some procedure writes (the
 * simplification the index makes), and with nothing else; wildcards widen reads as they widen writes; the loader names
 * the file, the line and the problem of a bad read.
 */
@Tag("unit")
class ReadKeysTest {
    static final String RULES = """
            tables:
              account: {key: [branch, id], columns: [branch, id, owner, balance, audits, checked, opened]}
              journal: {key: [], columns: [branch, id, amount]}
            procedures:
              deposit:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                  - {name: amount, type: numeric}
                writes:
                  - {update: account, key: [branch, id], columns: [balance]}
                  - {insert: journal, fresh: true}
              deposit_many:
                parameters:
                  - {name: branch, type: integer}
                  - {name: ids, type: "integer[]"}
                  - {name: amount, type: numeric}
                writes:
                  - {update: account, key: [branch, "ids[]"], columns: [balance]}
              rename:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                  - {name: owner, type: text}
                writes:
                  - {update: account, key: [branch, id], columns: [owner]}
              audit:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                writes:
                  - {update: account, key: [branch, id], columns: [audits]}
                reads:
                  - {table: account, key: [branch, id], columns: [balance]}
              check_balance:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                writes:
                  - {update: account, key: [branch, id], columns: [checked]}
                reads:
                  - {table: account, key: [branch, id], columns: [balance]}
              audit_branch:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer, nullable: true}
                writes:
                  - {update: account, key: [branch, "id?"], columns: [audits]}
                reads:
                  - {table: account, key: [branch, "*"], columns: [balance]}
              audit_some:
                parameters:
                  - {name: branch, type: integer}
                  - {name: ids, type: "integer[]"}
                writes:
                  - {update: account, key: [branch, "ids[]"], columns: [audits]}
                reads:
                  - {table: account, key: [branch, "ids[]"], columns: [balance, owner]}
              copy_balance:
                parameters:
                  - {name: branch, type: integer}
                  - {name: from_id, type: integer}
                  - {name: to_id, type: integer}
                writes:
                  - {update: account, key: [branch, to_id], columns: [checked]}
                reads:
                  - {table: account, key: [branch, from_id], columns: [balance]}
              audit_history:
                parameters:
                  - {name: branch, type: integer}
                  - {name: id, type: integer}
                writes:
                  - {update: account, key: [branch, id], columns: [audits]}
                reads:
                  - {table: account, key: [branch, id], columns: [opened]}
            """;

    static final ClassifierRules RULES_LOADED = load(RULES);

    static ClassifierRules load(String yaml) {
        return RulesLoader.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "bank.yaml");
    }

    private static Optional<String> conflict(ProcedureCall first, ProcedureCall second, Isolation isolation) {
        Optional<String> forward = RULES_LOADED.conflict(first, second, isolation);
        assertEquals(
                forward.isPresent(),
                RULES_LOADED.conflict(second, first, isolation).isPresent(),
                "a conflict is symmetric: " + first + " / " + second);
        return forward;
    }

    private static ProcedureCall call(String procedure, Object... arguments) {
        return ProcedureCall.of(procedure, arguments);
    }

    @Test
    void aReadConflictsWithEveryWriteOfTheSameCell() {
        ProcedureCall audit = call("audit", 1, 7);
        assertEquals(
                Optional.of("on read of account(branch=1, id=7) ~ account(branch=1, id=7), columns [balance]"),
                conflict(audit, call("deposit", 1, 7, 5), Isolation.PSI));
        assertTrue(conflict(audit, call("deposit_many", 1, List.of(3, 7), 5), Isolation.PSI)
                .isPresent());
        assertTrue(conflict(audit, call("deposit", 1, 8, 5), Isolation.PSI).isEmpty(), "another row");
        assertTrue(conflict(audit, call("deposit", 2, 7, 5), Isolation.PSI).isEmpty(), "another branch");
        assertTrue(
                conflict(audit, call("deposit_many", 1, List.of(3, 8), 5), Isolation.PSI)
                        .isEmpty(),
                "other rows of the branch");
    }

    @Test
    void psiReadsConflictByColumnAndSiReadsByRow() {
        ProcedureCall copy = call("copy_balance", 1, 7, 9);
        ProcedureCall rename = call("rename", 1, 7, "Ada");
        assertTrue(conflict(copy, rename, Isolation.PSI).isEmpty(), "PSI: the read column is not the written one");
        assertEquals(
                Optional.of("on read of account(branch=1, id=7) ~ account(branch=1, id=7), the row (SI)"),
                conflict(copy, rename, Isolation.SI));
        assertTrue(conflict(copy, call("rename", 1, 8, "Ada"), Isolation.SI).isEmpty(), "SI: another row");
        ProcedureCall auditSome = call("audit_some", 1, List.of(7, 9));
        assertEquals(
                Optional.of("on read of account(branch=1, id=7) ~ account(branch=1, id=7), columns [owner]"),
                conflict(auditSome, rename, Isolation.PSI),
                "a read of two columns conflicts with a write of either");
        assertTrue(conflict(call("audit_some", 1, List.of(8, 9)), rename, Isolation.PSI)
                .isEmpty());
    }

    @Test
    void twoReadsOfAWrittenCellConflictAndReadsOfCellsNoOneWritesGetNoKey() {
        // audit and check_balance write different columns; both read balance, which deposits write
        assertEquals(
                Optional.of("on read of account(branch=1, id=7) ~ read of account(branch=1, id=7), columns [balance]"),
                conflict(call("audit", 1, 7), call("check_balance", 1, 7), Isolation.PSI));
        // nothing writes account.opened: reading it orders nothing
        ProcedureCall history = call("audit_history", 1, 7);
        assertEquals(
                RULES_LOADED.writeKeys(history, Isolation.PSI),
                RULES_LOADED.conflictKeys(history, Isolation.PSI),
                "a read of a column no procedure writes adds no key");
        assertTrue(conflict(history, call("deposit", 1, 7, 5), Isolation.PSI).isEmpty());
        assertTrue(conflict(history, call("rename", 1, 7, "Ada"), Isolation.PSI).isEmpty());
        assertTrue(
                conflict(history, call("rename", 1, 7, "Ada"), Isolation.SI).isPresent(),
                "SI: the row's other writers");
    }

    @Test
    void wildcardReadsCoverEveryRowBelowTheirPrefix() {
        ProcedureCall branch = call("audit_branch", 1, 3);
        for (ProcedureCall writer :
                List.of(call("deposit", 1, 7, 5), call("deposit", 1, 3, 5), call("deposit_many", 1, List.of(42), 5))) {
            assertEquals(
                    "on read of account(branch=1, id=*) ~ " + describeFirstRow(writer) + ", columns [balance]",
                    conflict(branch, writer, Isolation.PSI).orElseThrow(),
                    writer.toString());
        }
        assertTrue(conflict(branch, call("deposit", 2, 3, 5), Isolation.PSI).isEmpty(), "another branch");
        assertTrue(conflict(branch, call("rename", 1, 3, "Ada"), Isolation.PSI).isEmpty(), "PSI: no shared column");
        assertTrue(conflict(branch, call("rename", 1, 3, "Ada"), Isolation.SI).isPresent(), "SI: rows of the branch");
        assertTrue(conflict(branch, call("rename", 2, 3, "Ada"), Isolation.SI).isEmpty());
        // a wildcard read meets the exact reads below it (both of balance, which deposits write)
        assertEquals(
                "on read of account(branch=1, id=*) ~ read of account(branch=1, id=7), columns [balance]",
                conflict(call("audit_branch", 1, 3), call("check_balance", 1, 7), Isolation.PSI)
                        .orElseThrow());
    }

    @Test
    void writeKeysLeaveReadsOutAndConflictKeysAddThem() {
        ProcedureCall audit = call("audit", 1, 7);
        assertEquals(1, RULES_LOADED.writeKeys(audit, Isolation.PSI).size());
        List<WriteKey> keys = RULES_LOADED.conflictKeys(audit, Isolation.PSI);
        assertEquals(2, keys.size(), keys.toString());
        assertTrue(keys.get(1).rule().isRead());
        WriteKeyBuffer buffer = new WriteKeyBuffer();
        RULES_LOADED.conflictKeys(audit, Isolation.SI, buffer);
        assertEquals(2, buffer.size());
        assertEquals(buffer.slot(0), buffer.slot(1), "SI: the read and the write share the row's slot");
        RULES_LOADED.conflictKeys(audit, Isolation.PSI, buffer);
        assertNotEquals(buffer.slot(0), buffer.slot(1), "PSI: audits and balance are different column groups");
    }

    @Test
    void aNullElementOfAnArrayInAReadKeyIsARejectedCallNamingTheParameter() {
        RulesException error = assertThrows(
                RulesException.class,
                () -> RULES_LOADED.conflictKeys(call("audit_some", 1, Arrays.asList(3, null)), Isolation.PSI));
        assertTrue(error.getMessage().startsWith("audit_some: element 2 of ids is NULL"), error.getMessage());
        RulesException write = assertThrows(
                RulesException.class,
                () -> RULES_LOADED.conflictKeys(call("deposit_many", 1, Arrays.asList(null, null), 5), Isolation.PSI));
        assertEquals(
                "deposit_many: element 1 of ids is NULL, but it is part of a write key of account (ids[]), so the "
                        + "rows it stands for cannot be known",
                write.getMessage());
    }

    @Test
    void readsAreInTheDigest() {
        String withoutARead =
                RULES.replace("    reads:\n      - {table: account, key: [branch, id], columns: [opened]}\n", "");
        assertNotEquals(RULES, withoutARead);
        assertNotEquals(RULES_LOADED.digest(), load(withoutARead).digest(), "a read left out changes what rules mean");
        assertEquals(
                RULES_LOADED.digest(),
                load(RULES.replace("audit_history:", "audit_history:  # x")).digest());
    }

    @Test
    void badReadsAreRejectedNamingFileLineAndProblem() {
        assertRejected(
                "      reads:\n        - {table: acount, key: [account_id], columns: [balance]}\n",
                "bank.yaml:12: a read of deposit: unknown table 'acount' (declared tables: account, ledger)");
        assertRejected(
                "      reads:\n        - {table: account, key: [account_id], columns: [balanse]}\n",
                "bank.yaml:12: a read of deposit: table account has no column 'balanse'");
        assertRejected(
                "      reads:\n        - {table: account, key: [account_id]}\n",
                "bank.yaml:12: a read of deposit: a read of account must list the columns it reads");
        assertRejected(
                "      reads:\n        - {table: account, columns: [balance]}\n",
                "bank.yaml:12: a read of deposit on account needs a key");
        assertRejected(
                "      reads:\n        - {table: account, key: [amount, account_id], columns: [balance]}\n",
                "must cover the primary key [id]");
        assertRejected(
                "      reads:\n        - {update: account, key: [account_id], columns: [balance]}\n",
                "bank.yaml:12: unknown key 'update' in a read of deposit (known: columns, key, table)");
        assertRejected(
                "      reads:\n        - {table: ledger, key: [account_id], columns: [amount]}\n",
                "a read of deposit: table ledger has no primary key");
        assertRejected(
                "      reads:\n        - {table: account, key: [acount_id], columns: [balance]}\n",
                "key part 'acount_id' for column id names no declared parameter of deposit");
        String readOnly = """
                tables:
                  account: {key: [id], columns: [id, balance]}
                procedures:
                  statement:
                    read-only: true
                    parameters: [{name: id, type: integer}]
                    reads:
                      - {table: account, key: [id], columns: [balance]}
                """;
        RulesException error = assertThrows(RulesException.class, () -> load(readOnly));
        assertTrue(
                error.getMessage().startsWith("bank.yaml:")
                        && error.getMessage().contains(": procedure statement is read-only, so it reads one snapshot"),
                error.getMessage());
        String noWrites = readOnly.replace("    read-only: true\n", "");
        RulesException onlyReads = assertThrows(RulesException.class, () -> load(noWrites));
        assertTrue(onlyReads.getMessage().contains("declares no writes"), onlyReads.getMessage());
    }

    private static void assertRejected(String reads, String expected) {
        String yaml = """
                tables:
                  account: {key: [id], columns: [id, owner, balance]}
                  ledger:  {key: [], columns: [account_id, amount]}
                procedures:
                  deposit:
                    parameters:
                      - {name: account_id, type: integer}
                      - {name: amount, type: numeric}
                    writes:
                      - {update: account, key: [account_id], columns: [balance]}
                """ + reads.replace("      reads:", "    reads:").replace("        - ", "      - ");
        RulesException error = assertThrows(RulesException.class, () -> load(yaml), reads);
        assertTrue(error.getMessage().contains(expected), "expected '" + expected + "' in: " + error.getMessage());
    }

    private static String describeFirstRow(ProcedureCall writer) {
        return RULES_LOADED.conflictKeys(writer, Isolation.PSI).get(0).describeRow();
    }
}
