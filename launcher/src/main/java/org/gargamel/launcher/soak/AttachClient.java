package org.gargamel.launcher.soak;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs a diagnostic command ({@code jcmd}) in another HotSpot JVM (JDK 17, Linux) through its attach listener's Unix
 * domain socket, as the JDK's {@code jcmd} does, reaching the socket through the target's own root
 * ({@code /proc/PID/root/tmp/.java_pidNSPID}, NSPID its pid in its pid namespace): a JVM in another network namespace
 * (or mount or pid namespace) is reached as one in this one, with no TCP and no loopback.
 *
 * <p>The protocol (the JDK's {@code sun.tools.attach.VirtualMachineImpl} for Linux): the client writes the protocol
 * version {@code 1}, the operation {@code jcmd} and three arguments (the command line, then two empty ones), each in
 * UTF-8 followed by a NUL; the target answers with its completion status as a decimal line (0: done), then the
 * command's output, and closes the connection. The target starts its listener when asked by the Attach API's handshake
 * (a file {@code .attach_pidNSPID} and SIGQUIT), which this client leaves to {@link VirtualMachine#attach}: once per
 * pid, and again, before one retry, if the socket is missing or refuses (a process that has not started its listener,
 * or a pid reused by a new process). The caller must first make sure the target handles SIGQUIT ({@link
 * HeapProbe#handlesSigquit}): before a JVM has installed its handlers, the handshake's SIGQUIT kills it.
 *
 * <p>Each command has a deadline: when it passes, a daemon thread closes the channel, which unblocks the connect or
 * read, and the command fails. A target that does not answer (thrashing near its heap limit, or stopped) thus costs
 * at most the deadline per command, never the caller's thread ({@code HeapProbeTest} stops one). A timed-out pid keeps
 * its handshake: the handshake's own connect has no deadline, and would block for ever once a stopped target's
 * listener backlog is full of abandoned connections.
 */
final class AttachClient implements AutoCloseable {
    private static final String PROTOCOL_VERSION = "1";
    private static final int MAX_REPLY_BYTES = 1 << 20;

    private final Duration timeout;
    private final Set<Long> attached = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor closer;

    /** @param timeout how long one command may take, connection included */
    AttachClient(Duration timeout) {
        this.timeout = timeout;
        this.closer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "attach-deadline");
            thread.setDaemon(true);
            return thread;
        });
        this.closer.setRemoveOnCancelPolicy(true);
    }

    /** The output of the diagnostic command {@code command} (e.g. {@code GC.heap_info}) run in {@code pid}. */
    String jcmd(long pid, String command) throws IOException {
        if (!attached.contains(pid)) {
            handshake(pid);
        }
        try {
            return execute(pid, command);
        } catch (NotListening e) {
            handshake(pid);
            return execute(pid, command);
        }
    }

    /** Forgets the handshakes with processes not in {@code live}. */
    void keepOnly(Set<Long> live) {
        attached.retainAll(live);
    }

    @Override
    public void close() {
        attached.clear();
        closer.shutdownNow();
    }

    /** Makes {@code pid} start its attach listener if it has not (the listener then stays up). */
    private void handshake(long pid) throws IOException {
        try {
            VirtualMachine.attach(Long.toString(pid)).detach();
        } catch (AttachNotSupportedException e) {
            throw new IOException("cannot attach to " + pid, e);
        }
        attached.add(pid);
    }

    private String execute(long pid, String command) throws IOException {
        Path socket = socket(pid);
        if (!Files.exists(socket)) {
            throw new NotListening(socket + " is missing");
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ScheduledFuture<?> deadline =
                    closer.schedule(() -> closeQuietly(channel), timeout.toNanos(), TimeUnit.NANOSECONDS);
            try {
                connect(channel, socket);
                ByteBuffer request = ByteBuffer.wrap(request(command));
                while (request.hasRemaining()) {
                    channel.write(request);
                }
                return reply(readAll(channel), pid, command);
            } catch (AsynchronousCloseException e) {
                throw new IOException(pid + " did not answer " + command + " within " + timeout, e);
            } finally {
                deadline.cancel(false);
            }
        }
    }

    private static void connect(SocketChannel channel, Path socket) throws IOException {
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (SocketException e) { // refused, or gone since checked; not AsynchronousCloseException (a timeout)
            throw new NotListening(socket + ": " + e.getMessage());
        }
    }

    /** {@code <version>\0jcmd\0<command>\0\0\0}. */
    static byte[] request(String command) {
        String request = PROTOCOL_VERSION + '\0' + "jcmd" + '\0' + command + '\0' + '\0' + '\0';
        return request.getBytes(StandardCharsets.UTF_8);
    }

    /** The output in {@code reply}, a status line then the output, if the status is 0. */
    static String reply(byte[] reply, long pid, String command) throws IOException {
        String text = new String(reply, StandardCharsets.UTF_8);
        int endOfStatus = text.indexOf('\n');
        if (endOfStatus < 0) {
            throw new IOException(pid + " answered " + command + " without a status: " + text);
        }
        int status;
        try {
            status = Integer.parseInt(text.substring(0, endOfStatus).trim());
        } catch (NumberFormatException e) {
            throw new IOException(pid + " answered " + command + " with a status that is not a number: " + text, e);
        }
        String output = text.substring(endOfStatus + 1);
        if (status != 0) {
            throw new IOException(pid + " failed " + command + " (status " + status + "): " + output.strip());
        }
        return output;
    }

    private static byte[] readAll(SocketChannel channel) throws IOException {
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        ByteBuffer buffer = ByteBuffer.allocate(8192);
        while (channel.read(buffer) >= 0) {
            reply.write(buffer.array(), 0, buffer.position());
            buffer.clear();
            if (reply.size() > MAX_REPLY_BYTES) {
                throw new IOException("a reply longer than " + MAX_REPLY_BYTES + " bytes");
            }
        }
        return reply.toByteArray();
    }

    /** The target's socket, reached through its root: its /tmp may not be ours (another mount namespace). */
    static Path socket(long pid) throws IOException {
        return Path.of("/proc", Long.toString(pid), "root", "tmp", ".java_pid" + namespacePid(pid));
    }

    /** {@code pid} in its own pid namespace: the last number of {@code NSpid} in its status, else {@code pid}. */
    static long namespacePid(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("NSpid:")) {
                String[] pids = line.substring("NSpid:".length()).trim().split("\\s+", -1);
                return Long.parseLong(pids[pids.length - 1]);
            }
        }
        return pid; // a kernel without NSpid (before 4.1)
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closed for the deadline: nothing more to release
        }
    }

    /** The target's socket is missing or refuses: its listener is not started (yet, or any more). */
    private static final class NotListening extends IOException {
        NotListening(String message) {
            super(message);
        }
    }
}
