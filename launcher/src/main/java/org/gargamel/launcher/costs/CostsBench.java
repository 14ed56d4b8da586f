package org.gargamel.launcher.costs;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.compare.MachineDescription;
import org.gargamel.launcher.run.ProcessCpuMeter;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.run.TpccRun;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;

/**
 * {@code bench costs} (issue 40): the CPU Gargamel spends per call by role, at each replica count, beside PostgreSQL's
 * own logical replication of the same workload on the same machine in the same run. Runs the plan's Gargamel runs one
 * after the other (each a {@link TpccRun}, its files under {@code DIR/gargamel-R}), then the native run ({@link
 * NativeRun}, under {@code DIR/native}); derives the figures, prints the table on {@code out} and writes {@code
 * DIR/costs.json} ({@link CostsReport}). Everything else goes to {@code err}.
 *
 * <p>Exit code 0 when every run passed its checks and the subscriber converged, whether or not the targets are met
 * (they are what the issue has to reach, not a check of the bench); 1 otherwise, costs.json still written when the
 * figures are there.
 */
public final class CostsBench {
    private final CostsPlan plan;
    private final PrintStream out;
    private final PrintStream err;

    public CostsBench(CostsPlan plan, PrintStream out, PrintStream err) {
        this.plan = plan;
        this.out = out;
        this.err = err;
    }

    public int execute() throws IOException, SQLException, InterruptedException {
        if (!ProcessCpuMeter.available()) {
            throw new CommandFailedException("bench costs reads CPU from /proc: it runs on Linux only");
        }
        String machine = MachineDescription.describe();
        String startedAt = LocalDateTime.now(ZoneId.systemDefault()).toString();
        int total = plan.gargamelRuns().size() + (plan.nativeRun().isPresent() ? 1 : 0);
        err.printf(
                Locale.ROOT,
                "bench costs: %d run(s), the terminals running %d s in all, on %s%n",
                total,
                plan.terminalsTime().toSeconds(),
                machine);
        List<GargamelCosts> runs = new ArrayList<>();
        int index = 0;
        for (RunRequest request : plan.gargamelRuns()) {
            index++;
            err.printf(
                    Locale.ROOT,
                    "%nbench costs: run %d of %d: Gargamel, %d replica(s), scheduler and nodes with %s JIT (%s)%n",
                    index,
                    total,
                    request.replicas(),
                    jitOf(request).configName(),
                    request.interval());
            requireSucceeded(
                    new TpccRun(request, err, err).execute(),
                    "the run of " + request.replicas() + " replica(s)",
                    request.out());
            runs.add(GargamelCosts.read(request.replicas(), request.out()));
        }
        List<ForeignWriteSetCost> derived = new ArrayList<>();
        runs.stream()
                .filter(run -> run.replicas() == 1)
                .findFirst()
                .ifPresent(one ->
                        runs.forEach(run -> ForeignWriteSetCost.derive(one, run).ifPresent(derived::add)));
        NativeCosts nativeCosts = null;
        if (plan.nativeRun().isPresent()) {
            RunRequest request = plan.nativeRun().get();
            err.printf(
                    Locale.ROOT,
                    "%nbench costs: run %d of %d: native, PostgreSQL's logical replication (%s)%n",
                    total,
                    total,
                    request.interval());
            nativeCosts = new NativeRun(request, err).run();
        }
        CostsReport report = new CostsReport(
                new CostsReport.Header(plan.command(), machine, startedAt, plan.settings(), jitSettings()),
                runs,
                derived,
                nativeCosts,
                CostTargets.evaluate(runs, derived, nativeCosts));
        Path file = plan.out().resolve("costs.json");
        report.write(file);
        out.print(report.table());
        out.println("costs: " + file);
        if (nativeCosts != null && !nativeCosts.converged()) {
            err.println("gargamel: error: the native subscriber's tables differ from the publisher's after catching up"
                    + " (see the comparison above and " + nativeCosts.result() + ")");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /** Fails the bench unless a run exited 0: 130 as an interruption, anything else naming the run's directory. */
    static void requireSucceeded(int exit, String run, Path directory) throws InterruptedException {
        if (exit == ExitCodes.INTERRUPTED) {
            throw new InterruptedException(run + " was interrupted");
        }
        if (exit != ExitCodes.OK) {
            throw new CommandFailedException(run + " failed (exit " + exit + "); its files are in " + directory);
        }
    }

    private static ChildJit jitOf(RunRequest request) {
        return ((RunTarget.Gargamel) request.target()).jit();
    }

    /** Which compilers each JVM of the bench had, for costs.json. */
    private Map<String, Object> jitSettings() {
        ChildJit children = jitOf(plan.gargamelRuns().get(0));
        Map<String, Object> jit = new LinkedHashMap<>();
        jit.put("schedulerAndNodes", children.configName());
        jit.put("schedulerAndNodesJvmOptions", children.jvmOptions());
        String extra = System.getenv(ChildJit.OPTIONS_VARIABLE);
        // Given after the options above: it may change the compilers, which is worth seeing beside the figures.
        jit.put(ChildJit.OPTIONS_VARIABLE, extra == null || extra.isBlank() ? null : extra);
        jit.put("clientJvmOptions", ManagementFactory.getRuntimeMXBean().getInputArguments());
        jit.put(
                "excluded",
                "the CPU of each Java process's C1 and C2 compiler threads over the measurement interval"
                        + " (jitMsPerCall), left out of msPerCallLessJit");
        return jit;
    }
}
