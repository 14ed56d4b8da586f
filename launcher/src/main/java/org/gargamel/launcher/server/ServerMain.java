package org.gargamel.launcher.server;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Entry point of gargamel-server.jar, what the scheduler and node processes run (the local cluster's children, the
 * Docker image's servers): {@code scheduler --config FILE} or {@code node --config FILE}. No TPC-C kit, embedded
 * PostgreSQL or Testcontainers is on its class path, and it uses nothing of the launcher outside this package.
 */
@Command(
        name = "gargamel",
        customSynopsis = "java -jar gargamel-server.jar scheduler|node|frontend --config FILE",
        subcommands = {SchedulerCommand.class, NodeCommand.class, FrontendCommand.class, HelpCommand.class})
public final class ServerMain implements Callable<Integer> {
    // UnusedVariable is wrong here: picocli reads this field by reflection to add the standard options.
    @SuppressWarnings("UnusedVariable")
    @Mixin
    private StandardOptions standardOptions;

    @Spec
    private CommandSpec spec;

    private ServerMain() {}

    public static void main(String[] args) {
        useServerLogging();
        // A scheduler or node started by `demo` must not outlive it, even if the demo is killed.
        System.exit(CommandExecution.runWatched(System.out, System.err, context -> run(args, context)));
    }

    /**
     * The servers' logging (INFO, with threads; logback-server.xml) instead of the commands' (warnings only). Must run
     * before any logger exists; a logback.configurationFile given on the command line wins.
     */
    public static void useServerLogging() {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-server.xml");
        }
    }

    /** Runs one command line; never exits the JVM, so tests can call it. */
    static int run(String[] args, CommandContext context) {
        return new CommandExecution(context).execute(new ServerMain(), args);
    }

    /** Without a command: the usage, on standard error (it is not a result), and exit 2. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }
}
