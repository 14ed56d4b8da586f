package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Binds real sockets on the loopback interface (so not a unit test: STYLE.md's unit tests open no socket). */
@Tag("integration")
class LoopbackPortsTest {

    @Test
    void picksDistinctBindablePortsBelowTheEphemeralRange() throws Exception {
        int ephemeralLow = LoopbackPorts.ephemeralLow();
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = LoopbackPorts.pick();
            assertTrue(port < ephemeralLow, port + " lies in the ephemeral range starting at " + ephemeralLow);
            assertTrue(ports.add(port), "port " + port + " handed out twice");
        }
        int port = ports.iterator().next();
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertEquals(port, socket.getLocalPort());
        }
    }
}
