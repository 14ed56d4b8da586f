package org.gargamel.launcher;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.gargamel.launcher.command.ApplyLagCommand;
import org.gargamel.launcher.command.BankCommand;
import org.gargamel.launcher.command.BenchCommand;
import org.gargamel.launcher.command.ChaosCommand;
import org.gargamel.launcher.command.ClassifyCommand;
import org.gargamel.launcher.command.CompareCommand;
import org.gargamel.launcher.command.DemoCommand;
import org.gargamel.launcher.command.ProfileCommand;
import org.gargamel.launcher.command.ServeCommand;
import org.gargamel.launcher.command.SimulateCommand;
import org.gargamel.launcher.command.SoakCommand;
import org.gargamel.launcher.command.TpccCommand;
import org.gargamel.launcher.command.VerifyCommand;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandExecution;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.FrontendCommand;
import org.gargamel.launcher.server.HelpCommand;
import org.gargamel.launcher.server.NodeCommand;
import org.gargamel.launcher.server.SchedulerCommand;
import org.gargamel.launcher.server.ServerMain;
import org.gargamel.launcher.server.StandardOptions;
import org.gargamel.provisioning.PostgresProvisioningException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Entry point of {@code scripts/gargamel} (gargamel-all.jar): every command, one class each. Exit codes
 * ({@link ExitCodes}): 0 ok, 1 a failed run or check, 2 bad usage or configuration (one line naming the option, and
 * nothing started), 3 a server failed, 130 interrupted.
 */
@Command(
        name = "gargamel",
        customSynopsis = "scripts/gargamel COMMAND [OPTIONS]",
        footer = "%nRun 'scripts/gargamel COMMAND --help' for the options of a command.",
        subcommands = {
            DemoCommand.class,
            ChaosCommand.class,
            SoakCommand.class,
            ServeCommand.class,
            TpccCommand.class,
            BankCommand.class,
            SchedulerCommand.class,
            NodeCommand.class,
            FrontendCommand.class,
            BenchCommand.class,
            CompareCommand.class,
            SimulateCommand.class,
            ApplyLagCommand.class,
            ClassifyCommand.class,
            VerifyCommand.class,
            ProfileCommand.class,
            HelpCommand.class
        })
public final class GargamelMain implements Callable<Integer> {
    // UnusedVariable is wrong here: picocli reads this field by reflection to add the standard options.
    @SuppressWarnings("UnusedVariable")
    @Mixin
    private StandardOptions standardOptions;

    @Spec
    private CommandSpec spec;

    private GargamelMain() {}

    public static void main(String[] args) {
        if (args.length > 0 && (args[0].equals("scheduler") || args[0].equals("node") || args[0].equals("frontend"))) {
            ServerMain.useServerLogging(); // `scripts/gargamel scheduler|node` log as gargamel-server.jar does
        }
        // A scheduler or node started by a demo must not outlive it, even if the demo is killed.
        System.exit(CommandExecution.runWatched(System.out, System.err, context -> run(args, context)));
    }

    /** Runs one command line; never exits the JVM, so tests can call it. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, CommandContext.of(out, err));
    }

    static int run(String[] args, CommandContext context) {
        return new CommandExecution(context)
                .explaining(PostgresProvisioningException.class)
                .execute(new GargamelMain(), args);
    }

    /** Without a command: the list of commands, and exit 2. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return ExitCodes.USAGE;
    }
}
