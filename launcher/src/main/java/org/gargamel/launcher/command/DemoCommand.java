package org.gargamel.launcher.command;

import org.gargamel.launcher.GargamelMain;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.launcher.command.CommandOptions;

/**
 * {@code gargamel demo}, the main job: three embedded PostgreSQL replicas behind the scheduler and three node
 * processes, TPC-C through them (2 warehouses, 10 terminals per warehouse, 60 s, mode gargamel, PSI), then the
 * consistency conditions on every replica and a table-by-table comparison of the replicas. Every option of
 * {@code tpcc run} applies (e.g. {@code --mode round-robin}, {@code --isolation si}, {@code --jdbc-url} three times).
 */
public final class DemoCommand {
    private final PrintStream out;
    private final PrintStream err;

    public DemoCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public int run(List<String> arguments) {
        CommandOptions spec = TpccRunCommand.options("demo");
        CommandOptions.Parsed options = spec.parse(withDefaults(arguments));
        if (options.flag("--help")) {
            out.print("Usage: scripts/gargamel demo [--replicas N] [--warehouses W] [--terminals T] [--warmup D] "
                    + "[--duration D] [--rate R] [--mode gargamel|round-robin|centralized|direct] [--isolation psi|si] "
                    + "[--jdbc-url URL ...] [--out DIR]\n"
                    + "Defaults: 3 embedded replicas, 2 warehouses, 10 terminals per warehouse, 60 s, gargamel, psi.\n"
                    + spec.usage());
            return GargamelMain.EXIT_OK;
        }
        return TpccRunCommand.execute(TpccRunCommand.parse(options, "gargamel"), out, err);
    }

    /** The demo's defaults: 2 warehouses and results under out/demo-*; the rest are tpcc run's. */
    private static List<String> withDefaults(List<String> arguments) {
        List<String> all = new ArrayList<>(arguments);
        if (arguments.stream().noneMatch(a -> a.startsWith("--warehouses"))) {
            all.add("--warehouses=2");
        }
        if (arguments.stream().noneMatch(a -> a.startsWith("--out"))) {
            all.add("--out=out/demo-" + java.time.LocalDateTime.now()
                    .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        return all;
    }
}
