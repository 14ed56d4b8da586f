package org.gargamel.common.group;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks TCP ports for processes that must know each other's address before they start (TCPPING needs fixed ports).
 *
 * <p>A port asked of the kernel with {@code new ServerSocket(0)} comes from the ephemeral range, the same range the
 * kernel draws from for every outgoing connection (JDBC, JGroups, clients). Between picking it and the child binding
 * it, any connection on the machine may take it as its local port: CI once failed with "No available port to bind to"
 * that way. So ports are drawn at random from below the ephemeral range, where the kernel never hands out ports by
 * itself, checked bindable, and never handed out twice by this JVM.
 */
public final class LoopbackPorts {
    private static final int LOWEST = 20_000;
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final int ATTEMPTS = 1_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    /** Read once: the range is a machine setting, not something that changes between picks. */
    private static final int HIGHEST = ephemeralLow() - 1;

    private LoopbackPorts() {}

    /** A port on 127.0.0.1 that was free a moment ago, outside the kernel's ephemeral range. */
    public static int pick() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = HIGHEST > LOWEST ? random.nextInt(LOWEST, HIGHEST + 1) : pickFromKernel();
            if (HANDED_OUT.add(port) && bindable(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free TCP port on 127.0.0.1 between " + LOWEST + " and " + HIGHEST
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
