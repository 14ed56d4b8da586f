package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Hosts on this machine that a partition can cut off: {@code hosts} network namespaces, each with its own address on a
 * bridge that this host (the root namespace) is on too, 10.231.X.1/24 here and 10.231.X.(10+i) in namespace i. Taking
 * the host side of a namespace's veth pair down cuts it off from everyone; bringing it up heals the partition. Needs
 * root and iproute2 ({@code ip netns}); everything it made is removed on {@link #close}. Names are unique per instance,
 * and only addresses inside the namespaces and bridge it made are used. The partition tests (PartitionIT) and the
 * partition faults of {@code chaos} and {@code soak} ({@link ClusterNetwork.Namespaced}) run their processes here.
 */
public final class NetworkNamespaces implements AutoCloseable {
    private final String prefix;
    private final int subnet;
    private final int hosts;
    /** What {@link #build} made, to remove in reverse order: a network namespace, or a link. */
    private record Made(boolean namespace, String name) {}

    private final List<Made> created = new ArrayList<>();
    /** Set by {@link #removeAll}: nothing more is made. Guarded by this. */
    private boolean removed;
    /** Removes what was made if the JVM exits before {@link #close} (Ctrl-C during a chaos run). */
    private final Thread removeAtExit = new Thread(this::removeAll, "network-namespaces-removal");

    private NetworkNamespaces(String prefix, int subnet, int hosts) {
        this.prefix = prefix;
        this.subnet = subnet;
        this.hosts = hosts;
    }

    /** Makes the bridge and {@code hosts} namespaces; fails, naming the command, if this machine cannot. */
    public static NetworkNamespaces create(int hosts) throws IOException, InterruptedException {
        String prefix = "gp" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
        NetworkNamespaces network = new NetworkNamespaces(prefix, freeSubnet(), hosts);
        Runtime.getRuntime().addShutdownHook(network.removeAtExit);
        try {
            network.build();
            return network;
        } catch (IOException | InterruptedException | RuntimeException e) {
            network.close();
            throw e;
        }
    }

    /**
     * A 10.231.X.0/24 that no interface of this host has: two partition tests run at once (PartitionIT and
     * SchedulerPartitionIT, or a soak beside them), and two bridges on one subnet would route each other's traffic.
     */
    private static int freeSubnet() throws IOException, InterruptedException {
        Process process = new ProcessBuilder("ip", "-o", "-4", "addr", "show")
                .redirectErrorStream(true)
                .start();
        String addresses = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor(20, TimeUnit.SECONDS);
        while (true) {
            int subnet = ThreadLocalRandom.current().nextInt(2, 250);
            if (!addresses.contains("10.231." + subnet + ".")) {
                return subnet;
            }
        }
    }

    /**
     * Makes the bridge, then each namespace; holds the lock {@link #removeAll} takes, so that the exit hook (Ctrl-C
     * meanwhile) removes everything made, after the building stops at its next step.
     */
    private synchronized void build() throws IOException, InterruptedException {
        String bridge = prefix + "-br";
        make(false, bridge, "ip", "link", "add", bridge, "type", "bridge");
        run("ip", "addr", "add", bridgeAddress() + "/24", "dev", bridge);
        run("ip", "link", "set", bridge, "up");
        for (int i = 1; i <= hosts; i++) {
            String namespace = namespace(i);
            make(true, namespace, "ip", "netns", "add", namespace);
            run("ip", "link", "add", hostSide(i), "type", "veth", "peer", "name", prefix + "-p" + i);
            run("ip", "link", "set", prefix + "-p" + i, "netns", namespace);
            run("ip", "link", "set", hostSide(i), "master", bridge);
            run("ip", "link", "set", hostSide(i), "up");
            run("ip", "netns", "exec", namespace, "ip", "addr", "add", address(i) + "/24", "dev", prefix + "-p" + i);
            run("ip", "netns", "exec", namespace, "ip", "link", "set", prefix + "-p" + i, "up");
            run("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up");
        }
    }

    /** Runs {@code command}, which makes {@code name}, and records it to remove; refuses once removal began. */
    private void make(boolean namespace, String name, String... command) throws IOException, InterruptedException {
        if (removed) {
            throw new IOException("the network namespaces were removed while being made (the JVM is exiting)");
        }
        created.add(new Made(namespace, name)); // first: a command that times out may still have made it
        run(command);
    }

    /** This host's address on the bridge. */
    public String bridgeAddress() {
        return "10.231." + subnet + ".1";
    }

    /** Namespace {@code i}'s address (1-based). */
    public String address(int i) {
        return "10.231." + subnet + "." + (10 + i);
    }

    /** The network, for PostgreSQL's pg_hba.conf. */
    public String cidr() {
        return "10.231." + subnet + ".0/24";
    }

    /** The command prefix that runs a program in namespace {@code i}. */
    public List<String> inNamespace(int i) {
        return List.of("ip", "netns", "exec", namespace(i));
    }

    /** Cuts namespace {@code i} off from the bridge: nothing reaches it, nothing leaves it. */
    public void cut(int i) throws IOException, InterruptedException {
        run("ip", "link", "set", hostSide(i), "down");
    }

    public void heal(int i) throws IOException, InterruptedException {
        run("ip", "link", "set", hostSide(i), "up");
    }

    private String namespace(int i) {
        return prefix + "-n" + i;
    }

    private String hostSide(int i) {
        return prefix + "-v" + i;
    }

    @Override
    public void close() {
        removeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(removeAtExit);
        } catch (IllegalStateException e) {
            // The JVM is exiting: the hook has run or runs now, and finds nothing left to remove.
        }
    }

    /** Removes what was made, in reverse order, once: a second call finds nothing. */
    private synchronized void removeAll() {
        removed = true;
        for (int i = created.size() - 1; i >= 0; i--) {
            Made made = created.get(i);
            try {
                if (made.namespace()) {
                    run("ip", "netns", "del", made.name()); // its end of the veth pair goes with it, and so the other
                } else {
                    run("ip", "link", "del", made.name());
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                // Best effort: the next step is still worth trying.
            }
        }
        created.clear();
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no answer within 20 s");
        }
        if (process.exitValue() != 0) {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            throw new IOException(String.join(" ", command) + " failed (exit " + process.exitValue() + "): " + output
                    + " (partitions need root and iproute2: network namespaces and veth pairs)");
        }
    }
}
