package org.gargamel.launcher.command;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.launcher.run.BankDatabases;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import org.gargamel.provisioning.PostgresCluster;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel bank load}: the bank's schema, procedures and accounts into every server given, identically. Every
 * server is checked (reachable, empty) before any is written.
 */
@Command(
        name = "load",
        description = "load the bank into one or more PostgreSQL servers",
        customSynopsis = "scripts/gargamel bank load --jdbc-url URL [--jdbc-url URL ...] [--branches B] [--accounts A]")
final class BankLoadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "a PostgreSQL server to load (each gets the same data); repeatable")
    private List<String> jdbcUrls = new ArrayList<>();

    @Option(
            names = "--branches",
            paramLabel = "B",
            defaultValue = "4",
            description = "branches (default ${DEFAULT-VALUE})")
    private int branches;

    @Option(
            names = "--accounts",
            paramLabel = "A",
            defaultValue = "1000",
            description = "accounts per branch (default ${DEFAULT-VALUE})")
    private int accounts;

    private final CommandContext context;

    BankLoadCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        Usage.range(spec, "--branches", branches, 1, BankCommand.MAX_BRANCHES);
        Usage.range(spec, "--accounts", accounts, 1, BankCommand.MAX_ACCOUNTS_PER_BRANCH);
        if (jdbcUrls.isEmpty()) {
            throw Usage.error(
                    spec,
                    "'bank load' needs at least one --jdbc-url (embedded servers are removed on exit; "
                            + "'bank run' without --jdbc-url loads and runs on embedded servers)");
        }
        TpccCommand.requireDistinct(spec, jdbcUrls);
        PostgresCluster.external(jdbcUrls).close();
        BankDatabases.load(jdbcUrls, branches, accounts, context.err());
        return ExitCodes.OK;
    }
}
