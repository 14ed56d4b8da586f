package org.gargamel.launcher.command;

import org.gargamel.launcher.server.CommandContext;
import picocli.CommandLine.Command;

/**
 * {@code gargamel soak}: {@code chaos} for an hour, partitions among its faults (each node in a network namespace of
 * its own: needs root), sampling every process's resources every 30 s (issue 43: a
 * replication middleware is trusted for its hundredth hour): at the end, besides chaos's checks, each process's heap
 * retained after GC at minute 10 against the end, in the summary, {@code resources.json} and {@code resources.svg}.
 */
@Command(
        name = SoakCommand.NAME,
        description = {
            "chaos for an hour (node, PostgreSQL and scheduler kills and node partitions), sampling every process's heap retained after GC,"
                    + " threads, open files and each node's data directory every 30 s: checked as chaos is, and the"
                    + " heap of each process at minute 10 against the end",
            "Defaults: 3 embedded replicas, 2 warehouses, 10 terminals per warehouse, 60 minutes, a fault every 20 s."
        },
        customSynopsis = {
            "scripts/gargamel soak [--duration D] [--sample-every D] [--interval D] [--downtime D]",
            "       [--kinds node,postgres,scheduler,partition] [--spare NODE] [--fault-seed S] [--out DIR]",
            "       [every option of demo]"
        },
        defaultValueProvider = ChaosCommand.Defaults.class) // chaos's, which gives soak an hour sampled every 30 s
public final class SoakCommand extends ChaosCommand {
    static final String NAME = "soak";

    SoakCommand(CommandContext context) {
        super(context);
    }
}
