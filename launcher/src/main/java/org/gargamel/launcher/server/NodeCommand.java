package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
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
        AtomicBoolean stopping = new AtomicBoolean();
        lifetime.stopOnShutdown(() -> {
            stopping.set(true);
            NodeServer node = running.get();
            node.close();
            err.print("gargamel node stopped: " + node.statistics().render());
            err.flush();
        });
        NodeServer node = start(running.get(), settings, running, err);
        out.println(NodeServer.READY + ": " + node.describe());
        out.flush();
        CompletableFuture<Throwable> fatal = new CompletableFuture<>();
        Thread keeper =
                new Thread(() -> keep(settings, running, stopping, fatal, out, err), settings.name() + "-keeper");
        keeper.setDaemon(true);
        keeper.start();
        lifetime.failWhen(fatal);
        return lifetime.await();
    }

    /**
     * Starts {@code node}; if catching up showed that this replica holds what the others do not (it committed a
     * transaction the log then settled as abandoned, before a crash), starts again, which rebuilds it from a peer.
     */
    private static NodeServer start(
            NodeServer node, NodeConfig settings, AtomicReference<NodeServer> running, PrintStream err)
            throws Exception {
        try {
            node.start();
            return node;
        } catch (Exception e) {
            if (!NodeServer.mustBeRebuilt(e)) {
                throw e;
            }
            err.println("gargamel node: " + settings.name() + " must be rebuilt; starting again from a peer's copy");
            node.close();
            NodeServer again = new NodeServer(settings);
            running.set(again);
            again.start();
            return again;
        }
    }

    /**
     * Keeps the node serving across the loss of its PostgreSQL (docs/node.md, Fencing) and across a taint (Rebuild):
     * the node stopped; it is closed at once, so it leaves the groups and the others settle its calls; once the
     * database answers, a new node starts (rebuilding a tainted replica from a peer first), catches up from the log and
     * joins. Any other failure is fatal.
     */
    private static void keep(
            NodeConfig settings,
            AtomicReference<NodeServer> running,
            AtomicBoolean stopping,
            CompletableFuture<Throwable> fatal,
            PrintStream out,
            PrintStream err) {
        try {
            while (true) {
                NodeServer node = running.get();
                Throwable failure = node.failure().get();
                boolean rebuild = NodeServer.mustBeRebuilt(failure);
                if (stopping.get() || !(rebuild || NodeServer.lostItsDatabase(failure))) {
                    fatal.complete(failure);
                    return;
                }
                node.close(); // fenced: out of the groups, nothing more from it
                if (rebuild) {
                    // It committed what the log abandoned (it was taken for departed, or cut off): the replica was
                    // marked tainted; a new start rebuilds it from a peer before it serves again.
                    err.println("gargamel node: " + settings.name() + " left the cluster to be rebuilt from a peer ("
                            + failure.getMessage() + ")");
                } else {
                    err.println("gargamel node: " + settings.name() + " lost its database and left the cluster ("
                            + failure.getMessage() + "); it starts again once "
                            + Secrets.maskUrl(settings.database().jdbcUrl())
                            + " answers");
                }
                err.flush();
                while (true) {
                    awaitDatabase(settings, stopping);
                    if (stopping.get()) {
                        return;
                    }
                    NodeServer again = new NodeServer(settings);
                    running.set(again);
                    try {
                        again = start(again, settings, running, err);
                        break;
                    } catch (Exception e) {
                        running.get().close();
                        if (!NodeServer.lostItsDatabase(e)) {
                            fatal.complete(e);
                            return;
                        }
                        err.println("gargamel node: " + settings.name() + " lost its database again while starting: "
                                + e.getMessage());
                    }
                }
                out.println(NodeServer.READY + ": " + running.get().describe() + " (again, after its database"
                        + " came back)");
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | java.util.concurrent.ExecutionException e) {
            fatal.complete(e);
        }
    }

    private static void awaitDatabase(NodeConfig settings, AtomicBoolean stopping) throws InterruptedException {
        while (!stopping.get() && !NodeServer.databaseAnswers(settings)) {
            Thread.sleep(500);
        }
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
