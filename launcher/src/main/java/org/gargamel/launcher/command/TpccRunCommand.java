package org.gargamel.launcher.command;

import java.util.concurrent.Callable;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.TpccRun;
import org.gargamel.launcher.server.CommandContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code gargamel tpcc run}: loads the database if it is empty, drives the terminals, checks consistency, prints a
 * summary and writes {@code DIR/result.json} ({@link TpccRun}). Every option is checked before anything is started or
 * written.
 */
@Command(
        name = "run",
        description = "run the TPC-C terminal emulator and write DIR/result.json",
        customSynopsis = {
            "scripts/gargamel tpcc run [--mode gargamel|round-robin|centralized|direct] [--replicas N] "
                    + "[--jdbc-url URL ...]",
            "           --warehouses W --terminals T [--warmup D] --duration D [--rate R] [--isolation psi|si] "
                    + "[--out DIR]"
        })
final class TpccRunCommand implements Callable<Integer> {
    @Mixin
    private RunOptions options;

    private final CommandContext context;

    TpccRunCommand(CommandContext context) {
        this.context = context;
    }

    /** The run the options ask for, checked; nothing started. */
    RunRequest request() {
        return options.request("tpcc");
    }

    @Override
    public Integer call() {
        return new TpccRun(request(), context.out(), context.err()).execute();
    }
}
