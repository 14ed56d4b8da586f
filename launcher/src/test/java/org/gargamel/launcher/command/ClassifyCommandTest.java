package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gargamel classify} with rules of one's own: a conflict through a declared read names the read. */
@Tag("unit")
class ClassifyCommandTest {
    private static final String RULES = """
            tables:
              account: {key: [id], columns: [id, owner, balance, audits]}
            procedures:
              deposit:
                parameters: [{name: id, type: integer}, {name: amount, type: numeric}]
                writes:
                  - {update: account, key: [id], columns: [balance]}
              rename:
                parameters: [{name: id, type: integer}, {name: owner, type: text}]
                writes:
                  - {update: account, key: [id], columns: [owner]}
              audit:
                parameters: [{name: id, type: integer}]
                writes:
                  - {update: account, key: [id], columns: [audits]}
                reads:
                  - {table: account, key: [id], columns: [balance]}
            """;

    @Test
    void aConflictThroughADeclaredReadNamesTheRead(@TempDir Path directory) throws Exception {
        String rules = Files.writeString(directory.resolve("bank.yaml"), RULES).toString();
        assertClassified(
                "CONFLICT on read of account(id=7) ~ account(id=7), columns [balance]",
                "classify",
                "--rules",
                rules,
                "audit(7)",
                "deposit(7, 5.00)");
        assertClassified("NO CONFLICT", "classify", "--rules", rules, "audit(7)", "deposit(8, 5.00)");
        assertClassified("NO CONFLICT", "classify", "--rules", rules, "audit(7)", "rename(7, 'Ada')");
        assertClassified(
                "CONFLICT on account(id=7) ~ account(id=7), the row (SI)",
                "classify",
                "--rules",
                rules,
                "--isolation",
                "si",
                "audit(7)",
                "rename(7, 'Ada')");
    }

    @Test
    void aBadReadIsOneErrorLineNamingFileAndLine(@TempDir Path directory) throws Exception {
        String withoutColumns =
                RULES.replace("{table: account, key: [id], columns: [balance]}", "{table: account, key: [id]}");
        String rules = Files.writeString(directory.resolve("bank.yaml"), withoutColumns)
                .toString();
        CommandRunner result = CommandRunner.run("classify", "--rules", rules, "audit(7)", "deposit(7, 5.00)");
        assertEquals(2, result.exitCode(), result.toString());
        assertTrue(
                result.errorLine().contains("bank.yaml:")
                        && result.errorLine().contains("a read of account must list the columns it reads"),
                result.toString());
    }

    private static void assertClassified(String expected, String... arguments) {
        CommandRunner result = CommandRunner.run(arguments);
        assertEquals(0, result.exitCode(), result.toString());
        assertEquals(expected, result.out().strip(), result.toString());
    }
}
