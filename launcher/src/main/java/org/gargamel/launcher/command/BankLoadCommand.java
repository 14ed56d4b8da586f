package org.gargamel.launcher.command;

import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.launcher.run.BankDatabases;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
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

    @Mixin
    private ServerUrlOptions servers;

    @Mixin
    private BankScaleOptions scale;

    private final CommandContext context;

    BankLoadCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        scale.check(spec);
        List<String> jdbcUrls = servers.require(
                spec,
                "'bank load' needs at least one --jdbc-url (embedded servers are removed on exit; "
                        + "'bank run' without --jdbc-url loads and runs on embedded servers)");
        BankDatabases.load(jdbcUrls, scale.branches, scale.accounts, context.err());
        return ExitCodes.OK;
    }
}
