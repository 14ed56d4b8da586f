package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.gargamel.frontend.FrontendConfig;
import org.gargamel.frontend.FrontendServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel frontend --config FILE}: runs a PostgreSQL wire-protocol front end (docs/frontend.md) until it is
 * stopped (SIGTERM, Ctrl-C: exit 0) or its parent process is gone (exit 143); see {@link ServerLifetime}. A front end
 * is stateless: run as many as the clients need, each with its own listen address.
 */
@Command(
        name = "frontend",
        description = "run a PostgreSQL wire-protocol front end (docs/frontend.md)",
        customSynopsis = "scripts/gargamel frontend --config FILE   (format: docs/frontend.md)")
public final class FrontendCommand implements Callable<Integer> {
    /** Printed once the front end listens, followed by a URI psql accepts. */
    public static final String READY = "gargamel frontend ready";

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "the front end's configuration (docs/frontend.md)")
    private Path config;

    private final CommandContext context;

    FrontendCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (config == null) {
            throw Usage.error(spec, "frontend needs --config FILE (format: docs/frontend.md)");
        }
        FrontendConfig settings = FrontendConfig.read(config);
        FrontendServer server = new FrontendServer(settings);
        PrintStream out = context.out();
        PrintStream err = context.err();
        ServerLifetime lifetime = new ServerLifetime("frontend", context.parentGone());
        lifetime.stopOnShutdown(() -> {
            server.close();
            err.println("gargamel frontend stopped");
        });
        server.start();
        out.println(READY + ": postgresql://" + server.host() + ":" + server.port() + "/gargamel");
        out.flush();
        return lifetime.await();
    }
}
