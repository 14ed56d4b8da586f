package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ports reserved across JVMs: a second JVM, started on this test's class path, holds reservations in a file of this
 * test's own (not the machine-wide one other builds use). No socket is opened: the bind check is a predicate here.
 */
@Tag("unit")
class PortReservationsTest {
    private static final int LOWEST = 20_000;
    private static final int HIGHEST = 20_009;
    /** The one port of [LOWEST, HIGHEST] the other JVM leaves free. */
    private static final int LEFT_FREE = 20_004;

    @TempDir
    Path directory;

    @Test
    void aPortReservedByAnotherJvmIsNeverPicked() throws Exception {
        Path file = directory.resolve(LoopbackPorts.RESERVATIONS_FILE);
        Process other = holdAllBut(file, LEFT_FREE);
        try {
            PortReservations here = PortReservations.open(file);
            assertEquals(
                    LEFT_FREE,
                    LoopbackPorts.pick(here, LOWEST, HIGHEST, port -> true),
                    "the only port of the range the other JVM does not hold");
            IllegalStateException none = assertThrows(
                    IllegalStateException.class,
                    () -> LoopbackPorts.pick(here, LOWEST, HIGHEST, port -> true),
                    "every port is held: nine by the other JVM, one by this one");
            assertTrue(none.getMessage().contains("no free TCP port"), none.getMessage());

            // Killed, not stopped: the operating system drops its reservations, nothing stale is left.
            other.destroyForcibly();
            assertTrue(other.waitFor(30, TimeUnit.SECONDS), "the other JVM was killed");
            int freed = LoopbackPorts.pick(here, LOWEST, HIGHEST, port -> true);
            assertNotEquals(LEFT_FREE, freed, "still held by this JVM");
            assertTrue(freed >= LOWEST && freed <= HIGHEST, freed + " lies outside the range");
        } finally {
            other.destroyForcibly();
        }
    }

    /**
     * A file that cannot be opened (here a symlink, which is refused; another user's file, a file system without
     * locks) leaves reservations among this JVM's own picks, rather than no port for any test or command.
     */
    @Test
    void aFileThatCannotBeOpenedLeavesReservationsWithinThisJvm() throws Exception {
        Path target = Files.createFile(directory.resolve("elsewhere"));
        Path link = Files.createSymbolicLink(directory.resolve("ports.lock"), target);
        PortReservations reservations = PortReservations.open(link);
        assertTrue(reservations.reserve(20_001));
        assertFalse(reservations.reserve(20_001), "reserved once");
        reservations.release(20_001);
        assertTrue(reservations.reserve(20_001), "free again once released");
    }

    @Test
    void aJvmReservesAPortOnceUntilItReleasesIt() {
        PortReservations reservations = PortReservations.open(directory.resolve(LoopbackPorts.RESERVATIONS_FILE));
        assertTrue(reservations.reserve(LOWEST));
        assertFalse(reservations.reserve(LOWEST), "reserved twice by the same JVM");
        assertTrue(reservations.reserve(LOWEST + 1), "another port is free still");
        reservations.release(LOWEST);
        assertTrue(reservations.reserve(LOWEST), "released, then free again");
    }

    /**
     * Starts a JVM that reserves every port of [LOWEST, HIGHEST] but {@code except} in {@code file}, and returns once
     * it holds them; it holds them until it is killed.
     */
    private Process holdAllBut(Path file, int except) throws Exception {
        Path errors = directory.resolve("holder.err");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Holder.class.getName(),
                        file.toString(),
                        Integer.toString(except))
                .redirectError(errors.toFile())
                .start();
        BufferedReader output =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        try {
            line = CompletableFuture.supplyAsync(() -> {
                        try {
                            return output.readLine();
                        } catch (IOException e) {
                            return "cannot read: " + e;
                        }
                    })
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
            throw e;
        }
        if (!"held".equals(line)) {
            process.destroyForcibly();
            throw new AssertionError("the other JVM said " + line + " instead of held; its errors: "
                    + (Files.exists(errors) ? Files.readString(errors) : ""));
        }
        return process;
    }

    /** The other JVM: reserves the ports, says "held", and holds them until killed (or its input ends). */
    static final class Holder {
        private Holder() {}

        public static void main(String[] arguments) throws IOException {
            PortReservations reservations = PortReservations.open(Path.of(arguments[0]));
            int except = Integer.parseInt(arguments[1]);
            for (int port = LOWEST; port <= HIGHEST; port++) {
                if (port != except && !reservations.reserve(port)) {
                    throw new IllegalStateException("port " + port + " was not free to reserve");
                }
            }
            System.out.println("held");
            System.out.flush();
            // Killed by the test; should the test's JVM die first, the pipe closes and this JVM ends too.
            while (System.in.read() >= 0) {
                // nothing is sent
            }
        }
    }
}
