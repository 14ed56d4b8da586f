package org.gargamel.launcher.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.frontend.FrontendConfig;
import org.gargamel.frontend.FrontendServer;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.scheduler.SupersededException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel scheduler --config FILE}: runs the scheduler until it is stopped (SIGTERM, Ctrl-C: exit 0), fails
 * (exit 3) or its parent process is gone (exit 143); see {@link ServerLifetime}. A scheduler superseded while it was cut
 * off is replaced by a new one in the same process, standing by. With key {@code frontend}, a PostgreSQL front end
 * (docs/frontend.md) runs in the same process, started once the scheduler has joined and stopped before it.
 */
@Command(
        name = "scheduler",
        description = "run the scheduler (docs/scheduler.md)",
        customSynopsis = "scripts/gargamel scheduler --config FILE   (format: docs/scheduler.md)")
public final class SchedulerCommand implements Callable<Integer> {
    /** Writes key {@code frontend} back as YAML, to read it as the front end's own file is read. */
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Printed once the scheduler has joined its group; the demo waits for it. */
    public static final String READY = "gargamel scheduler ready";

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "the scheduler's configuration (docs/scheduler.md)")
    private Path config;

    @Option(
            names = "--stats-file",
            paramLabel = "FILE",
            description = "write what the scheduler counted to FILE (JSON) when it stops: calls scheduled and rejected,"
                    + " and a site scheduler's agreement counters")
    private Path statsFile;

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
        FrontendServer frontend =
                settings.frontend() == null ? null : new FrontendServer(frontendConfig(config, settings));
        AtomicReference<SchedulerServer> running = new AtomicReference<>(new SchedulerServer(settings));
        AtomicBoolean stopping = new AtomicBoolean();
        PrintStream out = context.out();
        PrintStream err = context.err();
        ServerLifetime lifetime = new ServerLifetime("scheduler", context.parentGone());
        lifetime.stopOnShutdown(() -> {
            stopping.set(true);
            if (frontend != null) {
                frontend.close();
            }
            SchedulerServer server = running.get();
            Map<String, Object> counted = statsFile == null ? null : counters(server, err);
            server.close();
            if (counted != null) {
                writeStatistics(counted, err);
            }
            err.println("gargamel scheduler stopped: " + server.scheduledCount() + " call(s) scheduled, "
                    + server.rejectedCount() + " rejected");
        });
        running.get().start();
        out.println(READY + ": " + running.get().describe());
        if (frontend != null) {
            frontend.start();
            out.println(
                    FrontendCommand.READY + ": postgresql://" + frontend.host() + ":" + frontend.port() + "/gargamel");
        }
        out.flush();
        CompletableFuture<Throwable> fatal = new CompletableFuture<>();
        Thread keeper = new Thread(() -> keep(settings, running, stopping, fatal, out, err), "scheduler-keeper");
        keeper.setDaemon(true);
        keeper.start();
        lifetime.failWhen(fatal);
        return lifetime.await();
    }

    /** What a stopping scheduler counted, its agreement's counters read on its loop (left out if it cannot answer). */
    private static Map<String, Object> counters(SchedulerServer server, PrintStream err) {
        Map<String, Object> counted = new LinkedHashMap<>();
        counted.put("scheduled", server.scheduledCount());
        counted.put("rejected", server.rejectedCount());
        try {
            server.ownedCounters().ifPresent(owned -> counted.put("agreement", owned));
            server.agreementCounters().ifPresent(agreement -> counted.put("agreement", agreement));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            err.println("gargamel scheduler: its agreement's counters are left out of its statistics: " + e);
        }
        return counted;
    }

    private void writeStatistics(Map<String, Object> counted, PrintStream err) {
        try {
            java.nio.file.Files.writeString(
                    statsFile,
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(counted));
        } catch (java.io.IOException e) {
            err.println("gargamel scheduler: cannot write its statistics to " + statsFile + ": " + e.getMessage());
        }
    }

    /**
     * The front end of key {@code frontend} (docs/frontend.md), which runs in this process as a client of the control
     * group: its {@code rules} default to the scheduler's, its {@code control} to the scheduler's initial hosts (and
     * the scheduler itself) with a free port on the scheduler's bind address. Errors name the file and the key.
     */
    static FrontendConfig frontendConfig(Path file, SchedulerConfig scheduler) {
        Map<String, Object> keys = new LinkedHashMap<>(scheduler.frontend());
        if (keys.containsKey("rules")) {
            keys.put("rules", ConfigFiles.resolveBeside(file, String.valueOf(keys.get("rules"))));
        } else {
            keys.put("rules", scheduler.rules());
        }
        if (!keys.containsKey("control") && scheduler.control().bind() != null) {
            String bind = scheduler.control().bind();
            List<String> hosts = new ArrayList<>(scheduler.control().initialHosts());
            if (!hosts.contains(bind)) {
                hosts.add(bind);
            }
            keys.put("control", Map.of("bind", bind.substring(0, bind.lastIndexOf(':')) + ":0", "initialHosts", hosts));
        }
        if (!keys.containsKey("clusterSecurity") && scheduler.clusterSecurity() != null) {
            // A member of the same control group: the scheduler's secret (its path already read beside the file).
            keys.put(
                    "clusterSecurity",
                    Map.of("secretFile", scheduler.clusterSecurity().secretFile()));
        }
        String source = file + " (key frontend)";
        try {
            return ConfigFiles.parse(YAML.writeValueAsString(keys), source, FrontendConfig.class)
                    .validate();
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + ": " + e.getOriginalMessage(), e);
        } catch (ConfigException e) {
            throw e.getMessage().startsWith(source) ? e : new ConfigException(source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Keeps a scheduler in the group across being superseded (docs/protocol.md, Scheduler failover): a scheduler that
     * was cut off while another one took over learns so once it can reach the nodes again; it stops and leaves the
     * group, and a new one starts in this process, which stands by (it is the youngest scheduler). Any other failure
     * is fatal (exit 3).
     */
    private static void keep(
            SchedulerConfig settings,
            AtomicReference<SchedulerServer> running,
            AtomicBoolean stopping,
            CompletableFuture<Throwable> fatal,
            PrintStream out,
            PrintStream err) {
        try {
            while (true) {
                Throwable failure = running.get().failure().get();
                if (stopping.get() || !SupersededException.isCause(failure)) {
                    fatal.complete(failure);
                    return;
                }
                running.get().close();
                err.println(
                        "gargamel scheduler: superseded (" + failure.getMessage() + "); starting again to stand by");
                err.flush();
                SchedulerServer again = new SchedulerServer(settings);
                running.set(again);
                again.start();
                out.println(READY + ": " + again.describe() + " (again, after being superseded)");
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            fatal.complete(e);
        }
    }
}
