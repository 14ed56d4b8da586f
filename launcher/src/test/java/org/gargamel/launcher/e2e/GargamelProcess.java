package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.provisioning.PostgresSnapshots;

/**
 * {@code java -jar gargamel-all.jar ARGS}, as {@code scripts/gargamel} runs it, with its own temporary directory
 * (so a test can check that nothing is left in it) and its output in a file.
 */
final class GargamelProcess {
    final Process process;
    final Path output;
    final Path temporary;

    private GargamelProcess(Process process, Path output, Path temporary) {
        this.process = process;
        this.output = output;
        this.temporary = temporary;
    }

    static GargamelProcess start(Path workDirectory, String... arguments) throws IOException {
        return startIn(List.of(), workDirectory, arguments);
    }

    /**
     * {@link #start} as a user runs it, without the build's shared PostgreSQL binaries and loaded snapshots
     * ({@link PostgresCluster#BINARIES_DIRECTORY_VARIABLE} and {@link PostgresSnapshots#DIRECTORY_VARIABLE} unset):
     * embedded servers unpack the binaries into the temporary directory, which must still be empty at the end, and a
     * TPC-C run loads every replica.
     */
    static GargamelProcess startAsAUser(Path workDirectory, String... arguments) throws IOException {
        return start(List.of(), workDirectory, false, arguments);
    }

    /** {@link #start}, the command run behind {@code prefix} (e.g. {@code ip netns exec NAMESPACE}). */
    static GargamelProcess startIn(List<String> prefix, Path workDirectory, String... arguments) throws IOException {
        return start(prefix, workDirectory, true, arguments);
    }

    private static GargamelProcess start(
            List<String> prefix, Path workDirectory, boolean buildsSharedFiles, String... arguments)
            throws IOException {
        String jar = System.getProperty("gargamel.jar");
        if (jar == null || !Files.exists(Path.of(jar))) {
            throw new IllegalStateException(
                    "the all-in-one jar is missing (" + jar + "): these tests run in `verify`, " + "after `package`");
        }
        Path temporary = Files.createDirectories(workDirectory.resolve("tmp"));
        Path output = workDirectory.resolve("output.log");
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + temporary,
                "-jar",
                jar));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDirectory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        if (!buildsSharedFiles) {
            builder.environment().remove(PostgresCluster.BINARIES_DIRECTORY_VARIABLE);
            builder.environment().remove(PostgresSnapshots.DIRECTORY_VARIABLE);
        }
        Process process = builder.start();
        return new GargamelProcess(process, output, temporary);
    }

    /**
     * Runs gargamel with {@code arguments} to its end (at most {@code minutes}) and asserts that it exited 0 and left
     * no process and no temporary file behind; returns its output.
     */
    static String runCleanly(Path workDirectory, long minutes, String... arguments)
            throws IOException, InterruptedException {
        GargamelProcess run = start(workDirectory, arguments);
        List<ProcessHandle> children = Orphans.watchDescendants(run.process);
        int exit = run.waitFor(minutes, TimeUnit.MINUTES);
        String output = run.output();
        assertEquals(0, exit, output);
        Orphans.assertAllGone(children, output);
        assertEquals(List.of(), run.leftovers(), "temporary files left behind");
        return output;
    }

    int waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        if (!process.waitFor(timeout, unit)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(
                    "gargamel did not finish within " + timeout + " " + unit + "; output:\n" + output());
        }
        return process.exitValue();
    }

    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + output + ")";
        }
    }

    /** Waits until the output contains {@code text}. */
    void awaitOutput(String text, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!output().contains(text)) {
            if (!process.isAlive()) {
                throw new AssertionError("gargamel exited before printing '" + text + "':\n" + output());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no '" + text + "' within " + timeoutSeconds + " s:\n" + output());
            }
            Thread.sleep(200);
        }
    }

    /**
     * The Java threads of this process ({@code jcmd PID Thread.print}), for a failure message: what a process that
     * went silent is waiting for. The JVM may run behind a prefix ({@code ip netns exec} execs it in place, so its pid
     * is this process's; a prefix that forks leaves it as the one descendant running java).
     */
    String threadDump() {
        List<ProcessHandle> candidates = new ArrayList<>();
        candidates.add(process.toHandle());
        process.descendants().forEach(candidates::add);
        for (ProcessHandle candidate : candidates) {
            if (!candidate.info().command().orElse("").endsWith("java")) {
                continue;
            }
            try {
                Process jcmd = new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                        .toString(),
                                Long.toString(candidate.pid()),
                                "Thread.print")
                        .redirectErrorStream(true)
                        .start();
                byte[] dump = jcmd.getInputStream().readAllBytes();
                jcmd.waitFor(30, TimeUnit.SECONDS);
                return new String(dump, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(jcmd failed: " + e + ")";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "(interrupted)";
            }
        }
        return "(no java process: " + (process.isAlive() ? "alive" : "exited " + process.exitValue()) + ")";
    }

    /** How many times the output contains {@code text}. */
    int occurrences(String text) {
        String all = output();
        int count = 0;
        for (int at = all.indexOf(text); at >= 0; at = all.indexOf(text, at + text.length())) {
            count++;
        }
        return count;
    }

    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /** What is left in the temporary directory (embedded PostgreSQL data, extracted binaries). */
    List<Path> leftovers() throws IOException {
        try (var files = Files.list(temporary)) {
            return files.filter(path -> !path.getFileName().toString().startsWith("hsperfdata"))
                    .toList();
        }
    }
}
