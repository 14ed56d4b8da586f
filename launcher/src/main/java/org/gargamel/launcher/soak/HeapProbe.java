package org.gargamel.launcher.soak;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The heap a JVM retains: a full collection is asked of it ({@code MemoryMXBean.gc}), then its used heap is read. What
 * stays after a full collection is what the process holds; a number that grows from one sample to the next over an
 * hour is a leak. (The usage after the latest collection, without forcing one, is no measure with the serial
 * collector the cluster's processes run: a young collection leaves the old generation's garbage counted until the next
 * full one, which a large heap seldom runs, so the figure climbs between full collections whether anything leaks or
 * not.) The price: a full collection of each process at every sample, tens to hundreds of milliseconds every 30 s.
 *
 * <p>Another JVM of this user is read through the Attach API (its local management agent, started on first use) and
 * JMX; this one directly. One connection is kept per pid (a restarted process has a new pid). A process is attached to
 * only once it handles SIGQUIT ({@code SigCgt} in {@code /proc/PID/status}): before a JVM has installed its signal
 * handlers, the attach request's SIGQUIT would kill it (JDK 17 does not check), and a process is listed as soon as it
 * is started again after a fault.
 */
final class HeapProbe implements AutoCloseable {
    private final Map<Long, JMXConnector> connections = new HashMap<>();

    static {
        // Without it an RMI call to a process that no longer answers (thrashing near its heap's limit: what a soak
        // looks for) blocks for ever, and the run with it. Only this launcher's own JMX clients use RMI.
        if (System.getProperty("sun.rmi.transport.tcp.responseTimeout") == null) {
            System.setProperty("sun.rmi.transport.tcp.responseTimeout", "20000");
        }
    }

    /** The heap {@code pid} retains after a full collection, in bytes; empty if it cannot be read (yet). */
    OptionalLong retainedAfterGc(long pid) {
        try {
            MBeanServerConnection server;
            if (pid == ProcessHandle.current().pid()) {
                server = ManagementFactory.getPlatformMBeanServer();
            } else if (handlesSigquit(pid)) {
                server = connection(pid).getMBeanServerConnection();
            } else {
                return OptionalLong.empty(); // starting: not attachable yet
            }
            return OptionalLong.of(retainedAfterGc(server));
        } catch (Exception | LinkageError e) {
            forget(pid); // gone, restarted, or not a JVM any more
            return OptionalLong.empty();
        }
    }

    /** Whether {@code pid} catches SIGQUIT (signal 3): a JVM does once its signal handlers are installed. */
    static boolean handlesSigquit(long pid) {
        try {
            for (String line :
                    java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("SigCgt:")) {
                    long caught = Long.parseUnsignedLong(
                            line.substring("SigCgt:".length()).trim(), 16);
                    return (caught & (1L << (3 - 1))) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return false;
    }

    /** Forgets connections to processes not in {@code live}. */
    void keepOnly(Set<Long> live) {
        for (Long pid : Set.copyOf(connections.keySet())) {
            if (!live.contains(pid)) {
                forget(pid);
            }
        }
    }

    /** Asks {@code server}'s JVM for a full collection, then reads its used heap. */
    static long retainedAfterGc(MBeanServerConnection server) throws Exception {
        ObjectName memory = new ObjectName("java.lang:type=Memory");
        server.invoke(memory, "gc", null, null);
        CompositeData heap = (CompositeData) server.getAttribute(memory, "HeapMemoryUsage");
        return (Long) heap.get("used");
    }

    // BanJNDI: the address is the local management agent of a child process this launcher started (its own user,
    // found through the Attach API), not input from anyone else.
    @SuppressWarnings("BanJNDI")
    private JMXConnector connection(long pid) throws Exception {
        JMXConnector connector = connections.get(pid);
        if (connector == null) {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            String address;
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
            connections.put(pid, connector);
        }
        return connector;
    }

    private void forget(long pid) {
        JMXConnector connector = connections.remove(pid);
        if (connector != null) {
            try {
                connector.close();
            } catch (IOException e) {
                // the process is gone: nothing to close on its side
            }
        }
    }

    @Override
    public void close() {
        keepOnly(Set.of());
    }
}
