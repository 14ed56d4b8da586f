package org.gargamel.launcher.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.gargamel.common.config.ConfigException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How a command's end becomes an exit code and one line on standard error: bad configuration 2, a failure the user
 * can act on 1 with its message alone, an unexpected exception 1 with its class and a hint, interrupted 130; the
 * stack trace only with --debug (given to the program or to the command).
 */
@Tag("unit")
class CommandExecutionTest {

    @Command(name = "test", subcommands = Failing.class)
    static final class Root implements Callable<Integer> {
        // UnusedVariable is wrong here: picocli reads this field by reflection to add the standard options.
        @SuppressWarnings("UnusedVariable")
        @Mixin
        private StandardOptions standardOptions;

        @Override
        public Integer call() {
            return ExitCodes.USAGE;
        }
    }

    @Command(name = "fail")
    static final class Failing implements Callable<Integer> {
        @Option(names = "--with")
        private String kind = "none";

        @Override
        public Integer call() throws Exception {
            switch (kind) {
                case "config" -> throw new ConfigException("key 'mode': unknown mode 'nope'");
                case "argument" -> throw new IllegalArgumentException("the database holds 2 warehouse(s)");
                case "explained" ->
                    throw new CommandFailedException(
                            "refusing to load the database", new IllegalStateException("cause"));
                case "unexpected" -> throw new IllegalStateException("the cluster did not come together");
                case "checked" -> throw new java.io.IOException("disk full");
                case "interrupted" -> throw new InterruptedException();
                default -> {
                    return ExitCodes.OK;
                }
            }
        }
    }

    private record Outcome(int code, String out, String err) {}

    private static Outcome run(String... arguments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new CommandExecution(CommandContext.of(outStream, errStream)).execute(new Root(), arguments);
        }
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void exitCodesAndMessages() {
        assertEquals(ExitCodes.OK, run("fail").code());
        Outcome config = run("fail", "--with", "config");
        assertEquals(ExitCodes.USAGE, config.code());
        assertEquals("gargamel: error: key 'mode': unknown mode 'nope'\n", config.err());
        Outcome argument = run("fail", "--with", "argument");
        assertEquals(ExitCodes.USAGE, argument.code());
        assertEquals("gargamel: error: the database holds 2 warehouse(s)\n", argument.err());
        Outcome explained = run("fail", "--with", "explained");
        assertEquals(ExitCodes.FAILED, explained.code());
        assertEquals("gargamel: error: refusing to load the database\n", explained.err());
        Outcome checked = run("fail", "--with", "checked");
        assertEquals(ExitCodes.FAILED, checked.code());
        assertEquals("gargamel: error: disk full\n", checked.err());
        Outcome unexpected = run("fail", "--with", "unexpected");
        assertEquals(ExitCodes.FAILED, unexpected.code());
        assertEquals(
                "gargamel: error: java.lang.IllegalStateException: the cluster did not come together "
                        + "(run with --debug for the stack trace)\n",
                unexpected.err());
        Outcome interrupted = run("fail", "--with", "interrupted");
        assertEquals(ExitCodes.INTERRUPTED, interrupted.code());
        assertTrue(Thread.interrupted(), "the interrupt is kept");
        assertEquals("", unexpected.out() + explained.out() + config.out());
    }

    @Test
    void stackTracesOnlyWithDebugGivenToTheProgramOrTheCommand() {
        for (String[] arguments :
                new String[][] {{"--debug", "fail", "--with", "unexpected"}, {"fail", "--with", "unexpected", "--debug"}
                }) {
            Outcome debug = run(arguments);
            assertEquals(ExitCodes.FAILED, debug.code());
            assertTrue(
                    debug.err()
                            .startsWith("gargamel: error: java.lang.IllegalStateException: the cluster did not "
                                    + "come together\n"),
                    debug.err());
            assertTrue(debug.err().contains("\tat " + Failing.class.getName()), debug.err());
        }
        Outcome explained = run("fail", "--with", "explained", "--debug");
        assertTrue(explained.err().contains("Caused by: java.lang.IllegalStateException: cause"), explained.err());
        assertFalse(run("fail", "--with", "explained").err().contains("\tat "));
    }

    @Test
    void usageErrorsAreOneLineAndExitTwo() {
        Outcome unknown = run("fail", "--wiht", "x");
        assertEquals(ExitCodes.USAGE, unknown.code());
        assertEquals(
                "gargamel: error: unknown option '--wiht' for 'fail' (known: --with, --help, --debug)\n",
                unknown.err());
        Outcome command = run("frobnicate");
        assertEquals(ExitCodes.USAGE, command.code());
        assertEquals("gargamel: error: unknown command 'frobnicate' (run 'test help')\n", command.err());
        Outcome missing = run("fail", "--with");
        assertEquals("gargamel: error: option --with of 'fail' needs a value (<kind>)\n", missing.err());
    }
}
