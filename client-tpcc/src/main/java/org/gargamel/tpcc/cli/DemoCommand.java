package org.gargamel.tpcc.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.cli.CommandOptions;

/**
 * {@code gargamel demo}, the main job. Until the replicated path lands (issues 3 to 6) it runs the TPC-C
 * kit directly on PostgreSQL (embedded by default): load, run, check, summary, result.json.
 */
final class DemoCommand {
    private final PrintStream out;
    private final PrintStream err;

    DemoCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(List<String> arguments) {
        CommandOptions spec = TpccRunCommand.options("demo");
        CommandOptions.Parsed options = spec.parse(withDefaults(arguments));
        if (options.flag("--help")) {
            out.print("Usage: scripts/gargamel demo [--warehouses W] [--terminals T] [--duration D] [--jdbc-url URL] "
                    + "[--out DIR]\nToday: TPC-C directly on PostgreSQL (the Gargamel path arrives with issues 3-6).\n"
                    + spec.usage());
            return GargamelMain.EXIT_OK;
        }
        err.println("gargamel demo: the replicated Gargamel path is not built yet; running the direct TPC-C baseline");
        return TpccRunCommand.execute(TpccRunCommand.parse(options), out, err);
    }

    /** The demo's defaults: 2 warehouses, 10 terminals per warehouse, 60 s, results under out/demo-*. */
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
