package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.node.NodeConfig;
import org.gargamel.node.NodeServer;
import org.gargamel.node.capture.WriteSetCapture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel node --config FILE} runs a node until it is stopped (SIGTERM, Ctrl-C: exit 0), fails (exit 3) or
 * its parent process is gone (exit 143), see {@link ServerLifetime}; {@code gargamel node uninstall-capture --jdbc-url
 * URL} removes write-set capture from a database.
 */
@Command(
        name = "node",
        description = "run a node in front of one PostgreSQL replica (docs/node.md)",
        subcommands = NodeCommand.UninstallCapture.class,
        customSynopsis = {
            "scripts/gargamel node --config FILE            (format: docs/node.md)",
            "       scripts/gargamel node uninstall-capture --jdbc-url URL"
        })
public final class NodeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "the node's configuration (docs/node.md)")
    private Path config;

    private final CommandContext context;

    NodeCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (config == null) {
            throw Usage.error(spec, "node needs --config FILE (format: docs/node.md)");
        }
        NodeConfig settings = NodeConfig.read(config);
        PrintStream out = context.out();
        PrintStream err = context.err();
        ServerLifetime lifetime = new ServerLifetime(settings.name(), context.parentGone());
        AtomicReference<NodeServer> running = new AtomicReference<>(new NodeServer(settings));
        lifetime.stopOnShutdown(() -> {
            NodeServer node = running.get();
            node.close();
            err.print("gargamel node stopped: " + node.statistics().render());
            err.flush();
        });
        NodeServer node = running.get();
        try {
            node.start();
        } catch (Exception e) {
            if (!NodeServer.mustBeRebuilt(e)) {
                throw e;
            }
            // Catching up showed that this replica holds what the others do not (it committed a transaction the log
            // then settled as abandoned, before a crash): start again, which rebuilds it from a peer first.
            err.println("gargamel node: " + settings.name() + " must be rebuilt; starting again from a peer's copy");
            node.close();
            node = new NodeServer(settings);
            running.set(node);
            node.start();
        }
        out.println(NodeServer.READY + ": " + node.describe());
        out.flush();
        lifetime.failWhen(node.failure());
        return lifetime.await();
    }

    /** {@code node uninstall-capture --jdbc-url URL}: removes the capture triggers and functions from a database. */
    @Command(
            name = "uninstall-capture",
            description = "remove write-set capture from a database",
            customSynopsis = "scripts/gargamel node uninstall-capture --jdbc-url URL")
    static final class UninstallCapture implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(
                names = "--jdbc-url",
                paramLabel = "URL",
                required = true,
                description = "the database (jdbc:postgresql://host:port/database?user=...)")
        private String jdbcUrl;

        private final CommandContext context;

        UninstallCapture(CommandContext context) {
            this.context = context;
        }

        @Override
        public Integer call() {
            String masked = Secrets.maskUrl(jdbcUrl);
            if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
                throw Usage.error(
                        spec,
                        "option --jdbc-url of 'node uninstall-capture': malformed JDBC URL '" + masked
                                + "': expected jdbc:postgresql://host:port/database[?user=...&password=...]");
            }
            try (Connection connection = JdbcConnections.connect(jdbcUrl)) {
                connection.setAutoCommit(false);
                WriteSetCapture.uninstall(connection);
                connection.commit();
            } catch (SQLException e) {
                throw new CommandFailedException(
                        "cannot remove write-set capture from " + masked + ": " + e.getMessage()
                                + (e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")"),
                        e);
            }
            context.out().println("write-set capture removed from " + masked);
            return ExitCodes.OK;
        }
    }
}
