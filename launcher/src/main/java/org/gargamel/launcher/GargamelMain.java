package org.gargamel.launcher;

import org.gargamel.launcher.command.CommandFailedException;
import org.gargamel.launcher.command.CompareCommand;
import org.gargamel.launcher.command.DemoCommand;
import org.gargamel.launcher.command.TpccCommand;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gargamel.launcher.command.UsageException;
import org.gargamel.provisioning.PostgresProvisioningException;

/**
 * Entry point of {@code scripts/gargamel}: dispatches to the subcommands. Errors reach the user as one
 * line naming the problem; exit code 2 for bad input, 1 for a failed run or check, 0 otherwise.
 */
public final class GargamelMain {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    /** 128 + SIGINT, as a shell reports a command stopped by Ctrl-C. */
    public static final int EXIT_INTERRUPTED = 130;

    private GargamelMain() {
    }

    public static void main(String[] args) {
        // A scheduler or node started by `demo` must not outlive it, even if the demo is killed.
        org.gargamel.launcher.server.ParentWatchdog.startIfRequested();
        int code = run(args, System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    /** Runs one command line; never exits the JVM, so tests can call it. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
            out.print(usage());
            return args.length == 0 ? EXIT_USAGE : EXIT_OK;
        }
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        boolean debug = rest.remove("--debug");
        try {
            return switch (args[0]) {
                case "tpcc" -> new TpccCommand(out, err).run(rest);
                case "demo" -> new DemoCommand(out, err).run(rest);
                case "compare" -> new CompareCommand(out, err).run(rest);
                case "scheduler" -> runProcess(() -> org.gargamel.launcher.server.SchedulerCommand.run(
                        rest.toArray(String[]::new), out, err));
                case "node" -> runProcess(() -> org.gargamel.launcher.server.NodeCommand.run(rest.toArray(String[]::new), out, err));
                case "classify" -> org.gargamel.launcher.command.ClassifyCommand.run(rest.toArray(String[]::new), out, err);
                default -> throw new UsageException("unknown command '" + args[0] + "' (run 'gargamel help')");
            };
        } catch (UsageException | IllegalArgumentException e) {
            err.println("gargamel: error: " + e.getMessage());
            return EXIT_USAGE;
        } catch (PostgresProvisioningException | CommandFailedException e) {
            err.println("gargamel: error: " + e.getMessage());
            if (debug && e.getCause() != null) {
                e.getCause().printStackTrace(err);
            }
            return EXIT_FAILED;
        } catch (RuntimeException e) {
            err.println("gargamel: error: " + e + (debug ? "" : " (run with --debug for the stack trace)"));
            if (debug) {
                e.printStackTrace(err);
            }
            return EXIT_FAILED;
        }
    }

    /** A long-running process command (scheduler, node): checked exceptions become one-line errors. */
    private static int runProcess(java.util.concurrent.Callable<Integer> command) {
        try {
            return command.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return EXIT_INTERRUPTED;
        } catch (Exception e) {
            throw new CommandFailedException(e.getMessage(), e);
        }
    }

    static String usage() {
        return """
                Usage: scripts/gargamel COMMAND [OPTIONS]

                Commands:
                  demo                 the main job: TPC-C on embedded PostgreSQL, checked, with a summary
                  tpcc load            load the TPC-C database into one or more PostgreSQL servers
                  tpcc run             run the TPC-C terminal emulator and write DIR/result.json
                  tpcc check           check the TPC-C consistency conditions and compare databases
                  scheduler --config F run the scheduler (docs/scheduler.md)
                  node --config F      run a node in front of one PostgreSQL replica (docs/node.md)
                  bench NAME           JMH benchmarks: classifier (conflict index), scheduler
                  compare              the same workload through every mode, side by side (compare.json, compare.html)
                  classify CALL CALL   whether two calls may conflict under the classifier rules (TPC-C by default)
                  help                 this text

                Run 'scripts/gargamel COMMAND --help' for the options of a command.
                """;
    }
}
