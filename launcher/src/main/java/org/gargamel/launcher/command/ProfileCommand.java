package org.gargamel.launcher.command;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.gargamel.launcher.profile.CollapsedStacks;
import org.gargamel.launcher.profile.ProcessProfiler;
import org.gargamel.launcher.profile.ProfileOutput;
import org.gargamel.launcher.profile.ProfileResult;
import org.gargamel.launcher.profile.ProfileSession;
import org.gargamel.launcher.profile.ProfilerException;
import org.gargamel.launcher.profile.StageBreakdown;
import org.gargamel.launcher.profile.StageTable;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel profile}: CPU profiles of running Gargamel processes (the scheduler, the nodes, a client) with
 * async-profiler, loaded into them for {@code --duration}; or, with {@code --collapsed}, only the drawing and the
 * breakdown of profiles taken before. Writes {@code ROLE.collapsed}, {@code ROLE.svg} and {@code profile.json} to
 * {@code --out} and prints the share of each stage ({@link org.gargamel.launcher.profile.Stages}) per role.
 */
@Command(
        name = "profile",
        description = "profile running Gargamel JVMs with async-profiler (or draw collapsed stacks taken before):"
                + " flame graphs as SVG and the share of CPU by stage",
        customSynopsis = {
            "scripts/gargamel profile --pid ROLE=PID [--pid ROLE=PID ...] [--duration 30s] --out DIR",
            "       scripts/gargamel profile --collapsed FILE [FILE ...] --out DIR"
        },
        footer = {
            "  e.g. profile --pid scheduler=4242 --pid node-1=4301 --duration 30s --out out/profile",
            "  (pids: 'jps -lm' names each JVM by its command, e.g. 'ServerMain node --config .../node-1.yaml';"
                    + " profile after the warm-up)"
        })
public final class ProfileCommand implements Callable<Integer> {
    private static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--pid",
            paramLabel = "ROLE=PID",
            description = "a JVM of this user to profile and the role that names its files (node-1, scheduler,"
                    + " client, ...); repeat for each")
    private Map<String, Long> pids = new LinkedHashMap<>();

    @Option(
            names = "--collapsed",
            paramLabel = "FILE",
            arity = "1..*",
            description = "instead of profiling: collapsed stacks to draw and break down; a file's name without"
                    + " .collapsed is its role")
    private List<Path> collapsed = new ArrayList<>();

    @Option(
            names = "--duration",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "how long to profile (default 30s)")
    private Duration duration;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            required = true,
            description = "where ROLE.collapsed, ROLE.svg and profile.json go")
    private Path out;

    private final CommandContext context;

    ProfileCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (pids.isEmpty() == collapsed.isEmpty()) {
            throw Usage.error(
                    spec,
                    "'profile' needs either --pid ROLE=PID (profile running JVMs) or --collapsed FILE"
                            + " (draw profiles taken before), not both");
        }
        if (!collapsed.isEmpty()) {
            if (duration != null) {
                throw Usage.error(spec, "--duration is how long to profile with --pid; --collapsed only draws");
            }
            return render(readCollapsed(), Map.of());
        }
        return profile(duration == null ? DEFAULT_DURATION : duration);
    }

    private int profile(Duration length) throws InterruptedException {
        ProfileSession session;
        try {
            session = ProcessProfiler.start(pids, out);
        } catch (IllegalArgumentException e) {
            throw Usage.error(spec, "--pid: " + e.getMessage());
        } catch (ProfilerException e) {
            throw new CommandFailedException("profile: " + e.getMessage(), e);
        }
        context.err()
                .printf(
                        "profile: profiling %s for %ss with async-profiler%n",
                        pids.entrySet().stream()
                                .map(entry -> entry.getKey() + " (pid " + entry.getValue() + ")")
                                .collect(Collectors.joining(", ")),
                        length.toMillis() / 1000.0);
        session.notes().forEach(note -> context.err().println("profile: " + note));
        // Ctrl-C ends the JVM without interrupting this thread: stop the profilers all the same, or they would
        // sample the processes until these exit.
        Thread onExit = new Thread(
                () -> {
                    session.stop();
                    context.err()
                            .println("profile: interrupted; the profilers are stopped, collapsed stacks in " + out);
                },
                "profile-stop");
        Runtime.getRuntime().addShutdownHook(onExit);
        Map<String, ProfileResult> results;
        try {
            Thread.sleep(length.toMillis());
        } finally {
            results = session.stop();
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook stops nothing more (stop() ran already)
            }
        }
        Map<String, CollapsedStacks> profiles = new LinkedHashMap<>();
        Map<String, ProfileResult.Written> written = new LinkedHashMap<>();
        List<String> failed = new ArrayList<>();
        for (ProfileResult result : results.values()) {
            if (result instanceof ProfileResult.Written done) {
                written.put(done.role(), done);
                profiles.put(done.role(), read(done.collapsed()));
            } else if (result instanceof ProfileResult.Failed failure) {
                failed.add(failure.role());
                context.err()
                        .printf(
                                "profile: %s (pid %d): no profile: %s%n",
                                failure.role(), failure.pid(), failure.reason());
            }
        }
        if (profiles.isEmpty()) {
            throw new CommandFailedException("profile: no process could be profiled (see above)");
        }
        int code = render(profiles, written);
        if (!failed.isEmpty()) {
            context.err().println("gargamel: error: no profile of " + String.join(", ", failed) + " (see above)");
            return ExitCodes.FAILED;
        }
        return code;
    }

    private Map<String, CollapsedStacks> readCollapsed() {
        Map<String, CollapsedStacks> profiles = new LinkedHashMap<>();
        for (Path file : collapsed) {
            String name = file.getFileName().toString();
            String role = name.endsWith(".collapsed") ? name.substring(0, name.length() - ".collapsed".length()) : name;
            if (profiles.put(role, read(file)) != null) {
                throw Usage.error(spec, "--collapsed: two files for role '" + role + "'");
            }
        }
        return profiles;
    }

    private static CollapsedStacks read(Path file) {
        try {
            return CollapsedStacks.read(file);
        } catch (NoSuchFileException e) {
            throw new CommandFailedException("profile: no such file: " + file, e);
        } catch (IOException e) {
            throw new CommandFailedException("profile: cannot read " + file + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new CommandFailedException("profile: " + e.getMessage(), e);
        }
    }

    private int render(Map<String, CollapsedStacks> profiles, Map<String, ProfileResult.Written> written) {
        Map<String, StageBreakdown> breakdowns;
        try {
            breakdowns = ProfileOutput.write(profiles, written, out);
        } catch (IOException e) {
            throw new CommandFailedException("profile: cannot write to " + out + ": " + e.getMessage(), e);
        }
        context.out().print(StageTable.format(breakdowns));
        context.err()
                .printf(
                        "profile: wrote %s and profile.json to %s%n",
                        profiles.keySet().stream().map(role -> role + ".svg").collect(Collectors.joining(", ")), out);
        return ExitCodes.OK;
    }
}
