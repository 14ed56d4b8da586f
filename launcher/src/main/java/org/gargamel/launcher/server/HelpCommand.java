package org.gargamel.launcher.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code help [COMMAND...]}: the list of commands, or the options of one ({@code help tpcc run}), on stdout. */
@Command(
        name = "help",
        description = "this text, or the options of COMMAND",
        customSynopsis = "scripts/gargamel help [COMMAND [SUBCOMMAND]]")
public final class HelpCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "a command, and a subcommand of it")
    private List<String> names = new ArrayList<>();

    @Override
    public Integer call() {
        CommandLine command = spec.parent().commandLine();
        for (String name : names) {
            CommandLine subcommand = command.getSubcommands().get(name);
            if (subcommand == null) {
                throw Usage.error(
                        spec,
                        "unknown command '" + String.join(" ", names) + "' (run '"
                                + spec.root().name() + " help' for the list)");
            }
            command = subcommand;
        }
        command.usage(spec.commandLine().getOut());
        return ExitCodes.OK;
    }
}
