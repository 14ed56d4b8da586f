package org.gargamel.common.group;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntPredicate;

/**
 * Picks TCP ports for processes that must know each other's address before they start (TCPPING needs fixed ports).
 *
 * <p>A port asked of the kernel with {@code new ServerSocket(0)} comes from the ephemeral range, the same range the
 * kernel draws from for every outgoing connection (JDBC, JGroups, clients). Between picking it and the child binding
 * it, any connection on the machine may take it as its local port: CI once failed with "No available port to bind to"
 * that way. So ports are drawn at random from below the ephemeral range, where the kernel never hands out ports by
 * itself, and checked bindable.
 *
 * <p>Invariant: a port picked here is reserved for this JVM's life, among every JVM of this machine that picks through
 * this class (surefire's two JVMs per module, two modules built at once, the launcher whose children bind the ports
 * it picked, an end-to-end test and the commands it starts): no other of them picks it, and this JVM never picks it
 * twice, from the pick through the bind and as long as the picking JVM lives (a cluster's ports stay reserved across
 * a child killed and started again). The reservation is taken before the bind check, so no JVM of ours even probes a
 * port another holds. {@link PortReservations} keeps the reservations, in one file outside the JVM's temporary
 * directory (the end-to-end tests give each command its own): {@value #RESERVATIONS_FILE} under /tmp where it exists.
 * Guarded by {@code PortReservationsTest.aPortReservedByAnotherJvmIsNeverPicked}.
 */
public final class LoopbackPorts {
    private static final int LOWEST = 20_000;
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final int ATTEMPTS = 1_000;
    static final String RESERVATIONS_FILE = "gargamel-ports.lock";
    /** Read once: the range is a machine setting, not something that changes between picks. */
    private static final int HIGHEST = ephemeralLow() - 1;

    /** Opened on the first pick, not when the class loads: a failure to open it is reported to that pick. */
    private static PortReservations reservations;

    private LoopbackPorts() {}

    /** A port on 127.0.0.1 that was free a moment ago, outside the kernel's ephemeral range, reserved for this JVM. */
    public static int pick() {
        return pick(reservations(), LOWEST, HIGHEST, LoopbackPorts::bindable);
    }

    /**
     * A bindable port of [{@code lowest}, {@code highest}], drawn at random (from the kernel when the range is empty),
     * that {@code reservations} let this JVM reserve; it stays reserved.
     */
    static int pick(PortReservations reservations, int lowest, int highest, IntPredicate bindable) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = highest > lowest ? random.nextInt(lowest, highest + 1) : pickFromKernel();
            if (reservations.reserve(port)) {
                if (bindable.test(port)) {
                    return port;
                }
                reservations.release(port); // taken by a process that does not reserve: another may find it free later
            }
        }
        throw new IllegalStateException("no free TCP port on 127.0.0.1 between " + lowest + " and " + highest
                + " after " + ATTEMPTS + " attempts");
    }

    /**
     * A free port on {@code host}: as {@link #pick()} on a loopback address; elsewhere one the kernel hands out on that
     * address (a machine's real address: no other test process draws from it).
     */
    public static int pickOn(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            if (address.isLoopbackAddress()) {
                return pick();
            }
            try (ServerSocket socket = new ServerSocket(0, 0, address)) {
                return socket.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("no free TCP port on " + host + ": " + e.getMessage(), e);
        }
    }

    private static synchronized PortReservations reservations() {
        if (reservations == null) {
            Path machineWide = Path.of("/tmp");
            Path directory =
                    Files.isDirectory(machineWide) ? machineWide : Path.of(System.getProperty("java.io.tmpdir"));
            reservations = PortReservations.open(directory.resolve(RESERVATIONS_FILE));
        }
        return reservations;
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int pickFromKernel() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lower bound of Linux's ephemeral range; the IANA/Linux default elsewhere. */
    static int ephemeralLow() {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            if (Files.isReadable(range)) {
                // readAllLines, not readString: procfs reports a size of 0 and readString returned "3".
                return Integer.parseInt(
                        String.join(" ", Files.readAllLines(range)).trim().split("\\s+", -1)[0]);
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable or odd file: fall back to the default
        }
        return DEFAULT_EPHEMERAL_LOW;
    }
}
