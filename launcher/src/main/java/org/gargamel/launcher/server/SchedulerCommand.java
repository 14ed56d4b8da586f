package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel scheduler --config FILE}: runs the scheduler until it is stopped (SIGTERM, Ctrl-C: exit 0), fails
 * (exit 3) or its parent process is gone (exit 143); see {@link ServerLifetime}.
 */
@Command(
        name = "scheduler",
        description = "run the scheduler (docs/scheduler.md)",
        customSynopsis = "scripts/gargamel scheduler --config FILE   (format: docs/scheduler.md)")
public final class SchedulerCommand implements Callable<Integer> {
    /** Printed once the scheduler has joined its group; the demo waits for it. */
    public static final String READY = "gargamel scheduler ready";

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "the scheduler's configuration (docs/scheduler.md)")
    private Path config;

    private final CommandContext context;

    SchedulerCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (config == null) {
            throw Usage.error(spec, "scheduler needs --config FILE (format: docs/scheduler.md)");
        }
        SchedulerConfig settings = SchedulerConfig.read(config);
        SchedulerServer server = new SchedulerServer(settings);
        PrintStream out = context.out();
        PrintStream err = context.err();
        ServerLifetime lifetime = new ServerLifetime("scheduler", context.parentGone());
        lifetime.stopOnShutdown(() -> {
            server.close();
            err.println("gargamel scheduler stopped: " + server.scheduledCount() + " call(s) scheduled, "
                    + server.rejectedCount() + " rejected");
        });
        server.start();
        out.println(READY + ": " + server.describe());
        out.flush();
        lifetime.failWhen(failureOf(server));
        return lifetime.await();
    }

    /** Completes with the reason if the scheduler fails and must stop (its event loop met an unexpected error). */
    private static CompletableFuture<Throwable> failureOf(SchedulerServer server) {
        return server.failure();
    }
}
