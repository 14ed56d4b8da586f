package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bank commands refuse bad options with one line naming the option, before anything is started or written. */
@Tag("unit")
class BankCommandLineTest {

    private static void assertRejected(CommandRunner result, String expectedInMessage) {
        assertEquals(2, result.exitCode(), result.toString());
        assertTrue(result.errorLine().startsWith("gargamel: error: "), result.toString());
        assertTrue(
                result.errorLine().contains(expectedInMessage),
                "expected '" + expectedInMessage + "' in: " + result.errorLine());
        assertEquals("", result.out(), result.toString());
    }

    @Test
    void badOptionsAreRejectedBeforeAnythingRuns(@TempDir Path directory) {
        Path out = directory.resolve("never");
        String target = out.toString();
        assertRejected(CommandRunner.run("bank", "run", "--hot-percent", "101", "--out", target), "--hot-percent");
        assertRejected(CommandRunner.run("bank", "run", "--replicas", "0", "--out", target), "--replicas");
        assertRejected(
                CommandRunner.run("bank", "run", "--branches", "1", "--accounts", "1", "--out", target),
                "at least two accounts");
        assertRejected(
                CommandRunner.run("bank", "run", "--isolation", "serializable", "--out", target), "serializable");
        assertRejected(
                CommandRunner.run(
                        "bank",
                        "run",
                        "--replicas",
                        "2",
                        "--jdbc-url",
                        "jdbc:postgresql://127.0.0.1:1/x",
                        "--out",
                        target),
                "contradicts the 1 --jdbc-url");
        assertRejected(CommandRunner.run("bank", "load"), "'bank load' needs at least one --jdbc-url");
        assertRejected(CommandRunner.run("bank", "check"), "'bank check' needs at least one --jdbc-url");
        assertRejected(CommandRunner.run("bank"), "'bank' needs a subcommand");
        assertFalse(Files.exists(out), "nothing written");
    }

    @Test
    void helpListsTheBankCommands() {
        CommandRunner help = CommandRunner.run("help");
        assertEquals(0, help.exitCode(), help.toString());
        assertTrue(help.out().contains("bank run"), help.out());
        assertTrue(help.out().contains("bank check"), help.out());
    }
}
