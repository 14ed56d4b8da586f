package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * Entry point of gargamel-server.jar, what the scheduler and node processes run (the local cluster's children, the
 * Docker image's servers): {@code scheduler --config FILE} or {@code node --config FILE}. No TPC-C kit, embedded
 * PostgreSQL or Testcontainers is on its class path.
 */
public final class ServerMain {
    private ServerMain() {
    }

    public static void main(String[] args) {
        // The servers' logging (INFO, with threads) instead of the commands' (warnings only); before any logger exists.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "logback-server.xml");
        }
        // A scheduler or node started by `demo` must not outlive it, even if the demo is killed.
        ParentWatchdog.startIfRequested();
        int code = run(args, System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println("usage: java -jar gargamel-server.jar scheduler|node --config FILE");
            return 2;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (args[0]) {
                case "scheduler" -> SchedulerCommand.run(rest, out, err);
                case "node" -> NodeCommand.run(rest, out, err);
                default -> {
                    err.println("gargamel: error: unknown command '" + args[0] + "' (expected scheduler or node)");
                    yield 2;
                }
            };
        } catch (IllegalArgumentException e) {
            err.println("gargamel: error: " + e.getMessage());
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        } catch (Exception e) {
            err.println("gargamel: error: " + e.getMessage());
            return 1;
        }
    }
}
