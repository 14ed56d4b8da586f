package org.gargamel.launcher.command;

import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.common.config.Secrets;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.schema.DatabaseState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel tpcc check}: the consistency conditions on each database, and with several databases a
 * table-by-table comparison; exit 1 if any fails.
 */
@Command(
        name = "check",
        description = "check the TPC-C consistency conditions and compare databases",
        customSynopsis = "scripts/gargamel tpcc check --jdbc-url URL [--jdbc-url URL ...]")
final class TpccCheckCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ServerUrlOptions servers;

    private final CommandContext context;

    TpccCheckCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        List<String> jdbcUrls = servers.require(spec, "'tpcc check' needs at least one --jdbc-url");
        for (String url : jdbcUrls) {
            DatabaseState state = TpccDatabases.inspect(url);
            if (!state.isLoaded()) {
                throw new CommandFailedException("cannot check " + Secrets.maskUrl(url) + ": " + state.description());
            }
        }
        CheckReport report = new CheckRunner().run(jdbcUrls);
        context.out().print(report.render());
        if (!report.passed()) {
            context.err()
                    .println("gargamel: error: TPC-C check failed (see the lines marked VIOLATED or differing "
                            + "above)");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }
}
