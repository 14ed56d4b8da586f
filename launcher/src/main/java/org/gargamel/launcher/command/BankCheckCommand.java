package org.gargamel.launcher.command;

import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.bank.check.DatabaseInvariants;
import org.gargamel.bank.schema.BankSchema;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.launcher.run.BankDatabases;
import org.gargamel.launcher.run.BankRun;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel bank check}: the invariants the data alone decides (no negative balance, balances equal to their
 * entries, transfers with their two entries) on each database, and with several a table-by-table comparison; exit 1
 * if any fails. The invariants against what clients were told need a run's ledger: {@code bank run} checks them.
 */
@Command(
        name = "check",
        description = "check the bank's invariants and compare databases",
        customSynopsis = "scripts/gargamel bank check --jdbc-url URL [--jdbc-url URL ...]")
final class BankCheckCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ServerUrlOptions servers;

    private final CommandContext context;

    BankCheckCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        List<String> jdbcUrls = servers.require(spec, "'bank check' needs at least one --jdbc-url");
        for (String url : jdbcUrls) {
            if (BankDatabases.inspect(url) != BankSchema.State.LOADED) {
                throw new CommandFailedException(
                        "cannot check " + Secrets.maskUrl(url) + ": it does not hold the bank");
            }
        }
        List<DatabaseInvariants> invariants = BankRun.checkInvariants(jdbcUrls, null);
        ConvergenceReport convergence = TableChecksums.ofCatalogue().compare(jdbcUrls);
        context.out().print(BankRun.renderChecks(invariants, convergence));
        if (!invariants.stream().allMatch(DatabaseInvariants::passed) || !convergence.identical()) {
            context.err()
                    .println("gargamel: error: bank check failed (see the lines marked VIOLATED or DIFFERING above)");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }
}
