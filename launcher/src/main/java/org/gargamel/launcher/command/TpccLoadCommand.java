package org.gargamel.launcher.command;

import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.common.config.Secrets;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.schema.DatabaseState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel tpcc load}: the schema, the procedures and the initial population into every server given,
 * identically. Every server is checked (reachable, empty) before any is written.
 */
@Command(
        name = "load",
        description = "load the TPC-C database into one or more PostgreSQL servers",
        customSynopsis = "scripts/gargamel tpcc load --jdbc-url URL [--jdbc-url URL ...] --warehouses W")
final class TpccLoadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ServerUrlOptions servers;

    @Option(names = "--warehouses", paramLabel = "W", required = true, description = "number of warehouses (required)")
    private int warehouses;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "random seed; the same seed gives the same data (default ${DEFAULT-VALUE})")
    private long seed;

    @Option(names = "--threads", paramLabel = "N", description = "loader threads (default: number of cores)")
    private Integer threads;

    private final CommandContext context;

    TpccLoadCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        Usage.range(spec, "--warehouses", warehouses, 1, TpccCommand.MAX_WAREHOUSES);
        int threadCount =
                Usage.range(spec, "--threads", threads == null ? LoadOptions.defaultThreads() : threads, 1, 256);
        List<String> jdbcUrls = servers.require(
                spec,
                "'tpcc load' needs at least one --jdbc-url (embedded servers are removed on exit; "
                        + "'tpcc run' without --jdbc-url loads and runs on an embedded server)");
        for (String url : jdbcUrls) {
            DatabaseState state = TpccDatabases.inspect(url);
            if (!state.isEmpty()) {
                throw new CommandFailedException("refusing to load " + Secrets.maskUrl(url) + ": " + state.description()
                        + "; load into an empty database");
            }
        }
        new TpccLoader(new LoadOptions(warehouses, seed, threadCount), TpccDatabases.progress(context.err()))
                .load(jdbcUrls);
        return ExitCodes.OK;
    }
}
