package org.gargamel.launcher.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import org.gargamel.simulator.Calibration;
import org.gargamel.simulator.SimulatedRun;
import org.gargamel.simulator.SimulationReport;
import org.gargamel.simulator.SimulationSettings;
import org.gargamel.simulator.Simulator;
import org.gargamel.tpcc.TpccRules;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel simulate}: the discrete-event simulator (thesis ch. 5; the simulator module) at 1 to 64 replicas for
 * Gargamel and both baselines, with costs from a measured run, and its validation against measured runs; writes
 * {@code simulate.json} and {@code simulate.html}.
 */
@Command(
        name = "simulate",
        description = "predict TPC-C at 1-64 replicas from measured costs (simulate.json, simulate.html)",
        customSynopsis =
                "scripts/gargamel simulate [--quick] [--calibration DIR]... [--measured DIR]... [--apply-scale F] "
                        + "[--appliers K] [--out DIR]")
public final class SimulateCommand implements Callable<Integer> {
    /** The runs measured on the development machine with the built-in calibration, at 1 to 4 replicas. */
    private static final String[] BUILT_IN_MEASURED = {
        "/org/gargamel/simulator/calibration/r1/result.json",
        "/org/gargamel/simulator/measured/r2-result.json",
        "/org/gargamel/simulator/calibration/r3/result.json",
        "/org/gargamel/simulator/measured/r4-result.json"
    };

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--quick",
            description = "Gargamel and both baselines at 1, 2, 4, 8, 16, 32 and 64 replicas, one offered load, 4 s of "
                    + "simulated time each: about a minute on 2 cores")
    private boolean quick;

    @Option(
            names = "--calibration",
            paramLabel = "DIR",
            description = "the --out directory of a 'tpcc run' (its nodes.json and result.json) whose measured costs "
                    + "drive the simulation; repeatable, at distinct replica counts, one of them 2 or more (default: "
                    + "the built-in runs at 1 and 3 replicas, measured on the development machine)")
    private List<Path> calibration = new ArrayList<>();

    @Option(
            names = "--measured",
            paramLabel = "DIR",
            description = "a 'tpcc run' --out directory to predict and compare with (repeatable; default with the "
                    + "built-in calibration: the runs measured with it)")
    private List<Path> measured = new ArrayList<>();

    @Option(
            names = "--replicas",
            paramLabel = "N,...",
            split = ",",
            description = "replica counts of the prediction (default 1,2,4,8,16,32,64)")
    private List<Integer> replicaCounts = new ArrayList<>(List.of(1, 2, 4, 8, 16, 32, 64));

    @Option(
            names = "--terminals-per-replica",
            paramLabel = "T,...",
            split = ",",
            description = "offered loads: closed-loop terminals per replica, 10 per warehouse (default 4,16; 16 with "
                    + "--quick)")
    private List<Integer> terminalsPerReplica;

    @Option(
            names = "--cores-per-replica",
            paramLabel = "C",
            description = "cores of each replica's machine in the prediction (default 2)")
    private int coresPerReplica = 2;

    @Option(
            names = "--apply-scale",
            paramLabel = "F",
            description = "what if a replica spent F times the measured CPU on another replica's write-set (its "
                    + "apply and its overhead): 0.25 asks what four times cheaper applies would give (default 1)")
    private double applyScale = 1.0;

    @Option(
            names = "--appliers",
            paramLabel = "K",
            description = "what if each replica applied up to K write-sets at once, row by row (C5; round-robin keeps "
                    + "1): the prediction's apply loops (default 1, as the nodes today)")
    private int appliers = 1;

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "simulated time measured per run, after a tenth as much warm-up (default 20s, 4s with "
                    + "--quick)")
    private Duration duration;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "where simulate.json and simulate.html go (default out/simulate-<time>)")
    private Path out;

    private final PrintStream stdout;
    private final PrintStream err;

    SimulateCommand(CommandContext context) {
        this.stdout = context.out();
        this.err = context.err();
    }

    @Override
    public Integer call() throws IOException {
        for (int replicas : replicaCounts) {
            Usage.range(spec, "--replicas", replicas, 1, 64);
        }
        List<Integer> loads = terminalsPerReplica != null ? terminalsPerReplica : quick ? List.of(16) : List.of(4, 16);
        for (int load : loads) {
            Usage.range(spec, "--terminals-per-replica", load, 1, 1000);
        }
        Usage.range(spec, "--cores-per-replica", coresPerReplica, 1, 1024);
        Usage.range(spec, "--apply-scale", applyScale, 0, 100);
        Usage.range(spec, "--appliers", appliers, 1, 64);
        Duration measuredTime = duration != null ? duration : Duration.ofSeconds(quick ? 4 : 20);
        if (measuredTime.isZero() || measuredTime.isNegative()) {
            throw Usage.error(spec, "--duration must be positive, got " + measuredTime);
        }
        Calibration costs;
        try {
            costs = calibration.isEmpty() ? Calibration.builtIn() : Calibration.fromRuns(calibration);
        } catch (IllegalArgumentException | IOException e) {
            // A file that is not a run's (or not JSON): one line naming it, and nothing written.
            throw Usage.error(spec, "--calibration: " + e.getMessage());
        }
        Path directory = out != null
                ? out
                : Path.of("out/simulate-"
                        + LocalDateTime.now(ZoneId.systemDefault())
                                .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        if (Files.exists(directory) && !Files.isDirectory(directory)) {
            throw Usage.error(spec, "--out " + directory + " exists and is not a directory");
        }
        err.printf("simulate: costs from %s%n", costs.source());

        List<SimulationReport.Validation> validation = new ArrayList<>();
        for (MeasuredRun run : measuredRuns()) {
            SimulatedRun predicted =
                    Simulator.run(run.settings(measuredTime, costs), costs.sharedHostAt(run.replicas()));
            validation.add(SimulationReport.Validation.of(predicted, run.tpmC(), costs));
            err.printf(
                    "  validation: %s at %d replica(s): predicted %.0f tpmC, measured %.0f%n",
                    predicted.modeName(), run.replicas(), predicted.tpmC(), run.tpmC());
        }

        SimulationSettings.Machine machine = SimulationSettings.Machine.perReplica(coresPerReplica);
        List<SimulatedRun> runs = new ArrayList<>();
        int total = Mode.values().length * replicaCounts.size() * loads.size();
        for (Mode mode : Mode.values()) {
            for (int load : loads) {
                for (int replicas : replicaCounts) {
                    int terminals = load * replicas;
                    SimulationSettings settings = new SimulationSettings(
                            mode,
                            replicas,
                            RunOptions.DEFAULT_WORKERS,
                            terminals,
                            Math.max(1, (terminals + 9) / 10), // TPC-C: 10 terminals per warehouse
                            machine,
                            SimulationSettings.LOOPBACK_HOP_MS,
                            measuredTime.toMillis() / 10_000.0,
                            measuredTime.toMillis() / 1000.0,
                            1,
                            TpccRules.Variant.TABLE61,
                            applyScale,
                            appliers);
                    long started = System.nanoTime();
                    SimulatedRun run = Simulator.run(settings, costs.perReplicaMachines());
                    runs.add(run);
                    err.printf(
                            "  [%d/%d] %s, %d replica(s), %d terminals: %.0f tpmC (%.1f s)%n",
                            runs.size(),
                            total,
                            run.modeName(),
                            replicas,
                            terminals,
                            run.tpmC(),
                            (System.nanoTime() - started) / 1e9);
                }
            }
        }
        SimulationReport report = new SimulationReport(
                costs,
                machine + ", each replica " + RunOptions.DEFAULT_WORKERS
                        + " workers; TPC-C with the thesis's rules (Table 6.1), no think time",
                runs,
                validation);
        Path json = report.write(directory);
        stdout.print(report.text());
        stdout.println("simulate.json: " + json.toAbsolutePath());
        stdout.println("simulate.html: " + directory.resolve("simulate.html").toAbsolutePath());
        return ExitCodes.OK;
    }

    /** A measured run's shape and its tpmC, from its result.json. */
    private record MeasuredRun(
            Mode mode,
            int replicas,
            int terminals,
            int warehouses,
            int hostCores,
            TpccRules.Variant rules,
            double tpmC) {
        static MeasuredRun of(JsonNode result, String where) {
            JsonNode cpu = result.path("cpu");
            if (!cpu.isObject() || result.path("rate").isNumber()) {
                throw new IllegalArgumentException(where + ": not a closed-loop 'tpcc run' of this version (no cpu "
                        + "in its result.json, or an open loop)");
            }
            String rules = result.path("tpccRules").asText("table61");
            return new MeasuredRun(
                    Mode.parse(result.path("mode").asText()),
                    result.path("replicas").asInt(),
                    result.path("terminals").asInt(),
                    result.path("warehouses").asInt(),
                    cpu.path("hostCores").asInt(1),
                    TpccRules.Variant.parse(rules),
                    result.path("tpmC").asDouble());
        }

        /**
         * The same run simulated on one host: the calibration run's, delivering what that run measured it delivered
         * (saturated), or, calibrated elsewhere, this run's cores.
         */
        SimulationSettings settings(Duration measuredTime, Calibration costs) {
            double cores = costs.hostBusyCores() > 0 ? Math.min(hostCores, costs.hostBusyCores()) : hostCores;
            return new SimulationSettings(
                    mode,
                    replicas,
                    RunOptions.DEFAULT_WORKERS,
                    terminals,
                    warehouses,
                    SimulationSettings.Machine.sharedHost(cores),
                    SimulationSettings.LOOPBACK_HOP_MS,
                    measuredTime.toMillis() / 10_000.0,
                    measuredTime.toMillis() / 1000.0,
                    1,
                    rules,
                    1.0,
                    1);
        }
    }

    private List<MeasuredRun> measuredRuns() throws IOException {
        List<MeasuredRun> runs = new ArrayList<>();
        if (measured.isEmpty() && calibration.isEmpty()) {
            for (String resource : BUILT_IN_MEASURED) {
                try (InputStream in = Calibration.class.getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new CommandFailedException("the built-in measured run " + resource + " is missing");
                    }
                    runs.add(MeasuredRun.of(JSON.readTree(in), resource));
                }
            }
        }
        for (Path directory : measured) {
            Path result = Files.isDirectory(directory) ? directory.resolve("result.json") : directory;
            if (!Files.isRegularFile(result)) {
                throw Usage.error(spec, "--measured " + directory + ": no result.json there");
            }
            try {
                runs.add(MeasuredRun.of(JSON.readTree(result.toFile()), result.toString()));
            } catch (IllegalArgumentException | IOException e) {
                throw Usage.error(spec, "--measured " + result + ": " + e.getMessage());
            }
        }
        return runs;
    }
}
