package org.gargamel.launcher.command;

import java.util.concurrent.Callable;
import org.gargamel.launcher.server.Usage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel bank load|run|check}: the second application shipped with Gargamel (client-bank, docs/bank.md), run
 * like the TPC-C kit. Listed in help by its subcommands.
 */
@Command(
        name = "bank",
        hidden = true,
        description = "the bank application: load, run through a cluster, check",
        customSynopsis = "scripts/gargamel bank load|run|check [OPTIONS]",
        subcommands = {BankLoadCommand.class, BankRunCommand.class, BankCheckCommand.class})
public final class BankCommand implements Callable<Integer> {
    static final int MAX_BRANCHES = 1_000;
    static final int MAX_ACCOUNTS_PER_BRANCH = 1_000_000;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        throw Usage.error(spec, "'bank' needs a subcommand: load, run or check");
    }
}
