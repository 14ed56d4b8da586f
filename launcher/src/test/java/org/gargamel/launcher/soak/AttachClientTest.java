package org.gargamel.launcher.soak;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The attach protocol's messages: a request is the version, "jcmd" and three arguments, each NUL-terminated, the
 * missing ones empty; a reply's status line is stripped from the output when 0, and any other status fails the command
 * with the target's message (the replies are JDK 17's, read off its socket: status -1 for an unknown command).
 * (Against a real JVM: {@code HeapProbeTest}.)
 */
@Tag("unit")
class AttachClientTest {
    @Test
    void aRequestIsFiveNulTerminatedStrings() {
        assertArrayEquals(
                "1\0jcmd\0GC.heap_info\0\0\0".getBytes(StandardCharsets.UTF_8), AttachClient.request("GC.heap_info"));
    }

    @Test
    void aReplyIsAStatusLineThenTheOutput() throws IOException {
        byte[] reply = "0\n garbage-first heap   total 119808K, used 37853K\n".getBytes(StandardCharsets.UTF_8);
        assertEquals(
                " garbage-first heap   total 119808K, used 37853K\n", AttachClient.reply(reply, 42, "GC.heap_info"));
    }

    @Test
    void aStatusOtherThanZeroFailsTheCommand() {
        byte[] reply =
                "-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n".getBytes(StandardCharsets.UTF_8);
        IOException failure = assertThrows(IOException.class, () -> AttachClient.reply(reply, 42, "GC.nothing"));
        assertTrue(failure.getMessage().contains("Unknown diagnostic command"), failure.getMessage());
        assertThrows(IOException.class, () -> AttachClient.reply(new byte[0], 42, "GC.run"));
    }
}
