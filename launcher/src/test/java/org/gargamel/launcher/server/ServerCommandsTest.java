package org.gargamel.launcher.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;
import org.gargamel.frontend.FrontendConfig;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scheduler and node commands refuse bad usage and bad configuration with exit 2 and one line naming the problem,
 * before anything starts, from both programs: gargamel-server.jar ({@link ServerMain}) and gargamel-all.jar.
 */
@Tag("unit")
class ServerCommandsTest {
    @TempDir
    Path directory;

    private record Outcome(int code, String out, String err) {
        String errorLine() {
            String[] lines = err.strip().split("\n", -1);
            return lines[lines.length - 1];
        }
    }

    private static Outcome run(boolean serverJar, String... arguments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        BiFunction<String[], CommandContext, Integer> program = serverJar
                ? ServerMain::run
                : (args, context) -> org.gargamel.launcher.GargamelMain.run(args, context.out(), context.err());
        int code;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = program.apply(arguments, CommandContext.of(outStream, errStream));
        }
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void assertRefused(Outcome outcome, String... expected) {
        assertEquals(ExitCodes.USAGE, outcome.code(), outcome.toString());
        assertTrue(outcome.errorLine().startsWith("gargamel: error: "), outcome.toString());
        for (String text : expected) {
            assertTrue(outcome.errorLine().contains(text), "expected '" + text + "' in: " + outcome.errorLine());
        }
        assertEquals("", outcome.out(), "nothing on standard output: " + outcome);
    }

    /**
     * A scheduler's {@code frontend:} section is a front end's configuration (docs/frontend.md) whose rules and control
     * group default to the scheduler's; a bad key in it is refused naming the file, the section and the key.
     */
    @ParameterizedTest(name = "server jar: {0}")
    @ValueSource(booleans = {true, false})
    void theFrontEndSectionOfASchedulerDefaultsToTheSchedulersGroupAndRules(boolean serverJar) throws Exception {
        Path file = directory.resolve("scheduler-frontend.yaml");
        Files.writeString(
                file,
                "control: {bind: 127.0.0.1:7800, initialHosts: [127.0.0.1:7810]}\nrules: " + TpccRules.temporaryFile()
                        + "\nfrontend: {listen: 127.0.0.1:5433, authentication: trust}\n");
        SchedulerConfig scheduler = SchedulerConfig.read(file);
        FrontendConfig frontend = SchedulerCommand.frontendConfig(file, scheduler);
        assertEquals(scheduler.rules(), frontend.rules());
        assertEquals("127.0.0.1:0", frontend.control().bind());
        assertEquals(
                List.of("127.0.0.1:7810", "127.0.0.1:7800"), frontend.control().initialHosts());
        assertEquals(FrontendConfig.Authentication.TRUST, frontend.authentication());
        assertEquals(5433, frontend.listenAddress().getPort());
        assertFalse(scheduler.toString().contains("trust"), "the section stays out of the text: " + scheduler);

        Files.writeString(
                file,
                "control: {bind: 127.0.0.1:7800, initialHosts: [127.0.0.1:7800]}\nrules: " + TpccRules.temporaryFile()
                        + "\nfrontend: {listen: 127.0.0.1:5433, users: [{name: a}]}\n");
        assertRefused(run(serverJar, "scheduler", "--config", file.toString()), "(key frontend)", "users[0]");
        Files.writeString(
                file,
                "control: {bind: 127.0.0.1:7800, initialHosts: [127.0.0.1:7800]}\nrules: " + TpccRules.temporaryFile()
                        + "\nfrontend: {listen: 127.0.0.1:5433, colour: blue}\n");
        assertRefused(run(serverJar, "scheduler", "--config", file.toString()), "(key frontend)", "colour");
    }

    @ParameterizedTest(name = "server jar: {0}")
    @ValueSource(booleans = {true, false})
    void schedulerRefusesMissingOrBadConfigAndUnknownOptions(boolean serverJar) throws Exception {
        assertRefused(run(serverJar, "scheduler"), "scheduler needs --config FILE");
        Path bad = directory.resolve("scheduler.yaml");
        Files.writeString(
                bad, "control: {transport: in-memory}\nmode: nope\nrules: " + TpccRules.temporaryFile() + "\n");
        assertRefused(run(serverJar, "scheduler", "--config", bad.toString()), "key 'mode'");
        assertRefused(run(serverJar, "scheduler", "--verbose"), "unknown option '--verbose'", "'scheduler'");
        assertRefused(
                run(
                        serverJar,
                        "scheduler",
                        "--config",
                        directory.resolve("missing.yaml").toString()),
                "missing.yaml",
                "does not exist");
    }

    @ParameterizedTest(name = "server jar: {0}")
    @ValueSource(booleans = {true, false})
    void nodeRefusesBadUsageAndAMissingConfig(boolean serverJar) {
        assertRefused(run(serverJar, "node"), "node needs --config FILE");
        assertRefused(run(serverJar, "node", "--bogus"), "unknown option '--bogus'", "'node'");
        assertRefused(run(serverJar, "node", "uninstall-capture"), "'node uninstall-capture' needs option --jdbc-url");
        assertRefused(
                run(serverJar, "node", "uninstall-capture", "--jdbc-url", "postgres://h/db?password=Secret1"),
                "malformed JDBC URL",
                "password=***");
        assertRefused(
                run(
                        serverJar,
                        "node",
                        "--config",
                        directory.resolve("missing.yaml").toString()),
                "missing.yaml",
                "does not exist");
        Outcome help = run(serverJar, "node", "--help");
        assertEquals(ExitCodes.OK, help.code(), help.toString());
        assertTrue(help.out().startsWith("Usage: scripts/gargamel node --config FILE"), help.out());
        assertTrue(help.out().contains("node uninstall-capture --jdbc-url URL"), help.out());
    }

    @ParameterizedTest(name = "server jar: {0}")
    @ValueSource(booleans = {true})
    void theServerJarRunsOnlyTheServers(boolean serverJar) {
        assertRefused(run(serverJar, "demo"), "unknown command 'demo'");
        Outcome none = run(serverJar);
        assertEquals(ExitCodes.USAGE, none.code());
        assertTrue(
                none.err().startsWith("Usage: java -jar gargamel-server.jar scheduler|node|frontend --config FILE"),
                none.err());
        Outcome help = run(serverJar, "help");
        assertEquals(ExitCodes.OK, help.code());
        assertTrue(
                help.out().contains("\n  scheduler ")
                        && help.out().contains("\n  node uninstall-capture ")
                        && help.out().contains("\n  frontend "),
                help.out());
    }
}
