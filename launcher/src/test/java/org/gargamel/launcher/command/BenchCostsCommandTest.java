package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.costs.CostsPlan;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandExecution;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code bench costs} runs exactly what {@code tpcc run} would with the same options, each Gargamel run with server JIT
 * for its scheduler and nodes, and the native run as {@code tpcc run --mode direct}; bad options are refused before
 * anything starts. Nothing here starts a server.
 */
@Tag("unit")
class BenchCostsCommandTest {
    private final ByteArrayOutputStream errors = new ByteArrayOutputStream();
    private final CommandContext context = CommandContext.of(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(errors, true, StandardCharsets.UTF_8));

    private CostsPlan plan(String... arguments) {
        CommandLine line = new CommandExecution(context).commandLine(new BenchCostsCommand(context));
        line.parseArgs(arguments);
        return ((BenchCostsCommand) line.getCommand()).plan();
    }

    private RunRequest tpccRun(String... arguments) {
        CommandLine line = new CommandExecution(context).commandLine(new TpccRunCommand(context));
        line.parseArgs(arguments);
        return ((TpccRunCommand) line.getCommand()).request();
    }

    @Test
    void eachGargamelRunIsTpccRunsWithServerJitAndTheNativeRunIsItsDirectMode() {
        CostsPlan plan = plan(
                "--replicas",
                "1,3",
                "--warehouses",
                "2",
                "--terminals",
                "12",
                "--warmup",
                "7s",
                "--duration",
                "9s",
                "--seed",
                "5",
                "--out",
                "out/c");

        assertEquals(2, plan.gargamelRuns().size());
        for (RunRequest run : plan.gargamelRuns()) {
            int replicas = run.replicas();
            RunRequest expected = tpccRun(
                    "--replicas",
                    Integer.toString(replicas),
                    "--warehouses",
                    "2",
                    "--terminals",
                    "12",
                    "--warmup",
                    "7s",
                    "--duration",
                    "9s",
                    "--seed",
                    "5",
                    "--out",
                    "out/c/gargamel-" + replicas);
            RunTarget.Gargamel target = (RunTarget.Gargamel) run.target();
            assertEquals(ChildJit.SERVER, target.jit(), "the scheduler and nodes compile as servers do");
            assertEquals(ChildJit.QUICK_START, ((RunTarget.Gargamel) expected.target()).jit(), "tpcc run's own");
            assertEquals(withTarget(expected, ((RunTarget.Gargamel) expected.target()).withJit(ChildJit.SERVER)), run);
        }
        assertEquals(
                List.of(1, 3),
                plan.gargamelRuns().stream().map(RunRequest::replicas).toList());
        RunRequest nativeRun = plan.nativeRun().orElseThrow();
        assertEquals(
                tpccRun(
                        "--mode",
                        "direct",
                        "--warehouses",
                        "2",
                        "--terminals",
                        "12",
                        "--warmup",
                        "7s",
                        "--duration",
                        "9s",
                        "--seed",
                        "5",
                        "--out",
                        "out/c/native"),
                nativeRun);
        assertEquals(Path.of("out/c"), plan.out());
        assertEquals(
                "scripts/gargamel bench costs --replicas 1,3 --warehouses 2 --terminals 12 --warmup 7s --duration 9s"
                        + " --seed 5 --native --out out/c",
                plan.command());
    }

    @Test
    void theDefaultsAreIssue40s() {
        CostsPlan plan = plan();

        assertEquals(
                List.of(1, 3),
                plan.gargamelRuns().stream().map(RunRequest::replicas).toList());
        RunRequest first = plan.gargamelRuns().get(0);
        assertEquals(1, first.warehouses());
        assertEquals(10, first.terminals());
        assertEquals(Duration.ofMinutes(2), first.warmup());
        assertEquals(Duration.ofSeconds(30), first.duration());
        assertEquals(1, first.seed());
        assertTrue(plan.nativeRun().isPresent());
    }

    @Test
    void noNativeLeavesTheNativeRunOut() {
        assertTrue(plan("--replicas", "1", "--no-native").nativeRun().isEmpty());
    }

    @Test
    void aReplicaCountTwiceOrOutOfRangeIsRefusedNamingTheOption() {
        CommandLine.ParameterException twice = org.junit.jupiter.api.Assertions.assertThrows(
                CommandLine.ParameterException.class, () -> plan("--replicas", "1,1"));
        assertTrue(twice.getMessage().contains("--replicas"), twice.getMessage());
        CommandLine.ParameterException zero = org.junit.jupiter.api.Assertions.assertThrows(
                CommandLine.ParameterException.class, () -> plan("--replicas", "0,3"));
        assertTrue(zero.getMessage().contains("--replicas"), zero.getMessage());
    }

    @Test
    void benchCostsIsReachedThroughTheBenchCommandAndTheJmhNamesStillPointToTheirScripts() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int help = org.gargamel.launcher.GargamelMain.run(
                new String[] {"bench", "costs", "--help"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, help, err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--no-native"), out.toString(StandardCharsets.UTF_8));

        int jmh = org.gargamel.launcher.GargamelMain.run(
                new String[] {"bench", "classifier"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, jmh);
        assertTrue(
                err.toString(StandardCharsets.UTF_8).contains("scripts/gargamel bench"),
                err.toString(StandardCharsets.UTF_8));
    }

    private static RunRequest withTarget(RunRequest request, RunTarget target) {
        return new RunRequest(
                target,
                request.replicas(),
                request.jdbcUrls(),
                request.backend(),
                request.warehouses(),
                request.terminals(),
                request.warmup(),
                request.duration(),
                request.rate(),
                request.keying(),
                request.seed(),
                request.loadSeed(),
                request.out(),
                request.freshCopies());
    }
}
