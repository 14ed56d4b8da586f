package org.gargamel.launcher.command;

import org.gargamel.launcher.server.Usage;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --branches} and {@code --accounts}: the size of a bank the load (or a run on empty servers) creates. */
final class BankScaleOptions {
    @Option(
            names = "--branches",
            paramLabel = "B",
            defaultValue = "4",
            description = "branches of a new bank (default ${DEFAULT-VALUE})")
    int branches;

    @Option(
            names = "--accounts",
            paramLabel = "A",
            defaultValue = "1000",
            description = "accounts per branch of a new bank (default ${DEFAULT-VALUE})")
    int accounts;

    /** Both in range, and at least two accounts in all (a transfer needs two). */
    void check(CommandSpec spec) {
        Usage.range(spec, "--branches", branches, 1, BankCommand.MAX_BRANCHES);
        Usage.range(spec, "--accounts", accounts, 1, BankCommand.MAX_ACCOUNTS_PER_BRANCH);
        if ((long) branches * accounts < 2) {
            throw Usage.error(spec, "the bank needs at least two accounts for transfers (--branches x --accounts)");
        }
    }
}
