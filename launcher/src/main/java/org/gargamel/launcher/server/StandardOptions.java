package org.gargamel.launcher.server;

import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The options of every command, declared once on each program's root command and inherited by its subcommands. */
// UnusedVariable is wrong here: picocli sets these fields by reflection (the help option is acted on by picocli itself,
// and CommandExecution reads --debug from the parse result, wherever on the command line it was given).
@SuppressWarnings("UnusedVariable")
public final class StandardOptions {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            scope = ScopeType.INHERIT,
            description = "this text")
    private boolean help;

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "on an error, also print its stack trace")
    private boolean debug;
}
