package org.gargamel.launcher.server;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.gargamel.common.config.ConfigException;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;

/** {@code gargamel scheduler --config FILE}: runs the scheduler until it is terminated (SIGTERM, Ctrl-C). */
public final class SchedulerCommand {
    /** Printed once the scheduler has joined its group; the demo waits for it. */
    public static final String READY = "gargamel scheduler ready";

    private SchedulerCommand() {
    }

    /** The entry point of {@code scripts/gargamel scheduler}; returns the exit code. */
    public static int run(String[] args) throws Exception {
        return run(args, System.out, System.err);
    }

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Path config = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help")) {
                out.println("Usage: scripts/gargamel scheduler --config FILE   (format: docs/scheduler.md)");
                return 0;
            } else if (args[i].equals("--config") && i + 1 < args.length) {
                config = Path.of(args[++i]);
            } else if (args[i].startsWith("--config=")) {
                config = Path.of(args[i].substring("--config=".length()));
            } else {
                throw new IllegalArgumentException("unexpected argument '" + args[i] + "' (usage: scheduler --config FILE)");
            }
        }
        if (config == null) {
            throw new IllegalArgumentException("scheduler needs --config FILE (format: docs/scheduler.md)");
        }
        SchedulerConfig settings;
        try {
            settings = SchedulerConfig.read(config);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        SchedulerServer server = new SchedulerServer(settings);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            err.println("gargamel scheduler stopped: " + server.scheduledCount() + " call(s) scheduled, "
                    + server.rejectedCount() + " rejected");
            stopped.countDown();
        }, "scheduler-shutdown"));
        server.start();
        out.println(READY + ": " + server.describe());
        out.flush();
        stopped.await();
        return 0;
    }
}
