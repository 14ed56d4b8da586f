package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gargamel.launcher.server.ParentWatchdog;

/**
 * A Gargamel process (scheduler or node) started as a separate JVM with the same class path as this one,
 * its output in a log file, watched by {@link ParentWatchdog} so it cannot outlive us. {@link #close}
 * asks it to stop (SIGTERM: its shutdown hooks run), then kills it and anything it started.
 */
public final class ChildProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code java -cp classPath mainClass arguments...}, output appended to {@code log}. */
    public static ChildProcess startJava(
            String name, String classPath, String mainClass, List<String> arguments, List<String> jvmOptions, Path log)
            throws IOException {
        return startJava(name, List.of(), classPath, mainClass, arguments, jvmOptions, log);
    }

    /**
     * As above, the command run under {@code prefix} ({@code ip netns exec NS}, which execs it: the pid is the JVM's).
     */
    public static ChildProcess startJava(
            String name,
            List<String> prefix,
            String classPath,
            String mainClass,
            List<String> arguments,
            List<String> jvmOptions,
            Path log)
            throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Children keep their temporary files where ours go, so a test can check that nothing is left behind.
        command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment()
                .put(
                        ParentWatchdog.ENVIRONMENT_VARIABLE,
                        Long.toString(ProcessHandle.current().pid()));
        return new ChildProcess(name, builder.start(), log);
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** The exit code, if it has exited. */
    public Integer exitCode() {
        return process.isAlive() ? null : process.exitValue();
    }

    /** The last {@code lines} lines of the log, for error messages. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** SIGTERM, up to {@code grace} for the shutdown hooks, then SIGKILL of the process and its descendants. */
    public void stop(Duration grace) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        for (ProcessHandle descendant : descendants) {
            descendant.destroyForcibly();
        }
    }

    /** SIGKILL, as a crash: no shutdown hook runs. Returns once the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            stop(Duration.ofSeconds(10));
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ")";
    }
}
