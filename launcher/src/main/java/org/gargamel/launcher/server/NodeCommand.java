package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.config.ConfigException;
import org.gargamel.node.NodeConfig;
import org.gargamel.node.NodeServer;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * {@code gargamel node --config FILE} runs a node until it is terminated; {@code gargamel node uninstall-capture
 * --jdbc-url URL} removes write-set capture from a database.
 */
public final class NodeCommand {
    private NodeCommand() {
    }

    /**
     * The entry point for {@code scripts/gargamel node}: returns the exit code (0 stopped or done, 2 bad usage or
     * configuration, 3 the node failed and stopped, 1 anything else), with the reason on standard error.
     */
    public static int run(String[] args) {
        try {
            return run(args, System.out, System.err);
        } catch (IllegalArgumentException e) {
            System.err.println("gargamel node: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            System.err.println("gargamel node: " + e.getMessage());
            return 1;
        }
    }

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length > 0 && args[0].equals("uninstall-capture")) {
            return uninstall(args, out);
        }
        Path config = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help")) {
                out.println("Usage: scripts/gargamel node --config FILE            (format: docs/node.md)\n"
                        + "       scripts/gargamel node uninstall-capture --jdbc-url URL");
                return 0;
            } else if (args[i].equals("--config") && i + 1 < args.length) {
                config = Path.of(args[++i]);
            } else if (args[i].startsWith("--config=")) {
                config = Path.of(args[i].substring("--config=".length()));
            } else {
                throw new IllegalArgumentException("unexpected argument '" + args[i] + "' (usage: node --config FILE)");
            }
        }
        if (config == null) {
            throw new IllegalArgumentException("node needs --config FILE (format: docs/node.md)");
        }
        NodeConfig settings;
        try {
            settings = NodeConfig.read(config);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        NodeServer node = new NodeServer(settings);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
            err.print("gargamel node stopped: " + node.statistics().render());
            err.flush();
        }, "node-shutdown"));
        node.start();
        out.println(NodeServer.READY + ": " + node.describe());
        out.flush();
        Throwable failure = node.failure().get();
        err.println("gargamel node " + settings.name() + ": fatal: " + failure.getMessage());
        return 3;
    }

    private static int uninstall(String[] args, PrintStream out) throws Exception {
        if (args.length != 3 || !args[1].equals("--jdbc-url")) {
            throw new IllegalArgumentException("usage: node uninstall-capture --jdbc-url URL");
        }
        try (Connection connection = DriverManager.getConnection(args[2])) {
            connection.setAutoCommit(false);
            WriteSetCapture.uninstall(connection);
            connection.commit();
        }
        out.println("write-set capture removed from " + Secrets.maskUrl(args[2]));
        return 0;
    }
}
