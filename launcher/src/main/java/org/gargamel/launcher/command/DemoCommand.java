package org.gargamel.launcher.command;

import java.util.concurrent.Callable;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.TpccRun;
import org.gargamel.launcher.server.CommandContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code gargamel demo}, the main job: three embedded PostgreSQL replicas behind the scheduler and three node
 * processes, TPC-C through them (2 warehouses, 10 terminals per warehouse, 60 s, mode gargamel, PSI), then the
 * consistency conditions on every replica and a table-by-table comparison of the replicas. Every option of
 * {@code tpcc run} applies (e.g. {@code --mode round-robin}, {@code --isolation si}, {@code --jdbc-url} three times).
 */
@Command(
        name = "demo",
        description = {
            "the main job: TPC-C on embedded PostgreSQL, checked, with a summary",
            "Defaults: 3 embedded replicas, 2 warehouses, 10 terminals per warehouse, 60 s, gargamel, psi."
        },
        customSynopsis = {
            "scripts/gargamel demo [--replicas N] [--warehouses W] [--terminals T] [--warmup D] "
                    + "[--duration D] [--rate R]",
            "       [--mode gargamel|round-robin|centralized|direct] [--isolation psi|si] [--jdbc-url URL ...] "
                    + "[--out DIR]"
        },
        defaultValueProvider = DemoCommand.Defaults.class)
public final class DemoCommand implements Callable<Integer> {
    @Mixin
    private RunOptions options;

    private final CommandContext context;

    DemoCommand(CommandContext context) {
        this.context = context;
    }

    /** The run the options ask for, checked; nothing started. */
    RunRequest request() {
        return options.request("demo");
    }

    @Override
    public Integer call() {
        return new TpccRun(request(), context.out(), context.err()).execute();
    }

    /** Where the demo's defaults differ from {@code tpcc run}'s: 2 warehouses. */
    static final class Defaults implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec argument) {
            return argument instanceof OptionSpec option && option.longestName().equals("--warehouses") ? "2" : null;
        }
    }
}
