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
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The heap a JVM retained after its latest garbage collection: the sum over its heap pools of the usage after that
 * collection (young or full), read from its garbage collectors' {@code LastGcInfo}. What stays after a collection is
 * what the process holds; a number that grows from one sample to the next over an hour is a leak, where the used heap
 * between collections only says when the next one comes.
 *
 * <p>Another JVM of this user is read through the Attach API (its local management agent, started on first use) and
 * JMX; this one directly. One connection is kept per pid (a restarted process has a new pid).
 */
final class HeapProbe implements AutoCloseable {
    private final Map<Long, JMXConnector> connections = new HashMap<>();

    /** The heap {@code pid} retained after its latest collection, in bytes; empty if it cannot be read (yet). */
    OptionalLong retainedAfterGc(long pid) {
        try {
            MBeanServerConnection server = pid == ProcessHandle.current().pid()
                    ? ManagementFactory.getPlatformMBeanServer()
                    : connection(pid).getMBeanServerConnection();
            return retainedAfterGc(server);
        } catch (Exception e) {
            forget(pid); // gone, restarted, or not a JVM any more
            return OptionalLong.empty();
        }
    }

    /** Forgets connections to processes not in {@code live}. */
    void keepOnly(Set<Long> live) {
        for (Long pid : Set.copyOf(connections.keySet())) {
            if (!live.contains(pid)) {
                forget(pid);
            }
        }
    }

    static OptionalLong retainedAfterGc(MBeanServerConnection server) throws Exception {
        Set<String> heapPools = new java.util.HashSet<>();
        for (ObjectName pool : server.queryNames(new ObjectName("java.lang:type=MemoryPool,*"), null)) {
            if ("HEAP".equals(String.valueOf(server.getAttribute(pool, "Type")))) {
                heapPools.add(String.valueOf(server.getAttribute(pool, "Name")));
            }
        }
        long latestEnd = -1;
        long retained = 0;
        for (ObjectName collector : server.queryNames(new ObjectName("java.lang:type=GarbageCollector,*"), null)) {
            CompositeData last = (CompositeData) server.getAttribute(collector, "LastGcInfo");
            if (last == null) {
                continue; // this collector has not run yet
            }
            long end = (Long) last.get("endTime");
            if (end < latestEnd) {
                continue;
            }
            latestEnd = end;
            retained = 0;
            TabularData after = (TabularData) last.get("memoryUsageAfterGc");
            for (Object row : after.values()) {
                CompositeData entry = (CompositeData) row;
                if (heapPools.contains(String.valueOf(entry.get("key")))) { // not metaspace, code cache
                    retained += (Long) ((CompositeData) entry.get("value")).get("used");
                }
            }
        }
        return latestEnd < 0 ? OptionalLong.empty() : OptionalLong.of(retained);
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
