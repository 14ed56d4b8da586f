package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.launcher.cluster.ChildProcesses.Launch;
import org.gargamel.tpcc.workload.CallExecutor;
import org.gargamel.tpcc.workload.GargamelExecutor;

/**
 * Gargamel on this machine: the scheduler and one node per replica, each a separate JVM started from our own class
 * path, talking JGroups over TCP with static discovery on 127.0.0.1 (or, for partition faults, each node in a network
 * namespace of its own: {@link ClusterNetwork}); plus the client library in this JVM. Writes
 * their configuration files and logs under the plan's directory. If a process dies during the run the cluster
 * reports it ({@link #failure()}) and calls the registered listeners, so the run stops at once instead of hanging.
 * {@link #close()} stops every process, also on failure and Ctrl-C.
 *
 * <p>This class holds the topology (ports, groups, sites) and writes each process's configuration; the child JVMs
 * (start, readiness, failure watch, kill and restart, stop) are {@link ChildProcesses}', the clients in this JVM
 * {@link ClusterClients}', the groups' secret {@link GroupSecurity}'s.
 */
public final class LocalGargamelCluster implements GargamelCluster {
    static final String SCHEDULER_READY = "gargamel scheduler ready";
    static final String NODE_READY = "gargamel node ready";
    static final String FRONTEND_READY = "gargamel frontend ready";

    private final ClusterPlan plan;
    /** The child JVMs: started, watched, killed and started again, stopped. */
    private final ChildProcesses children;
    /** The clients in this JVM, of the scheduler(s) or of each site. */
    private final ClusterClients clients;

    private final List<Path> statisticsFiles = new ArrayList<>();
    /** The site schedulers' statistics files (written when they stop), in site order. */
    private final List<Path> schedulerStatisticsFiles = new ArrayList<>();

    /** The port the front end listens on, once started; 0 without one. */
    private volatile int frontendPort;

    private LocalGargamelCluster(ClusterPlan plan) {
        this.plan = plan;
        this.children = new ChildProcesses(plan.jit());
        this.clients = new ClusterClients(plan);
    }

    /** Starts the scheduler and the nodes, waits until the scheduler sees every node, and connects the client. */
    public static LocalGargamelCluster start(ClusterPlan plan, PrintStream err)
            throws IOException, InterruptedException {
        LocalGargamelCluster cluster = new LocalGargamelCluster(plan);
        try {
            cluster.launch(err);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void launch(PrintStream err) throws IOException, InterruptedException {
        if (plan.sites() != null && !plan.sites().oneScheduler()) {
            launchSites(err);
        } else {
            launchOneSite(err);
        }
        children.startWatching();
    }

    private void launchOneSite(PrintStream err) throws IOException, InterruptedException {
        Path directory = Files.createDirectories(plan.directory());
        List<String> schedulerNames = plan.schedulerNames();
        int[] schedulerPorts = new int[schedulerNames.size()];
        List<String> controlHosts = new ArrayList<>();
        ClusterNetwork network = plan.network();
        for (int i = 0; i < schedulerPorts.length; i++) {
            schedulerPorts[i] = LoopbackPorts.pick();
            controlHosts.add(network.address(schedulerNames.get(i)) + ":" + schedulerPorts[i]);
        }
        int[] controlPorts = new int[plan.replicas()];
        int[] writeSetPorts = new int[plan.replicas()];
        List<String> writeSetHosts = new ArrayList<>();
        for (int i = 0; i < plan.replicas(); i++) {
            controlPorts[i] = LoopbackPorts.pick();
            writeSetPorts[i] = LoopbackPorts.pick();
            String node = plan.nodeNames().get(i);
            controlHosts.add(network.address(node) + ":" + controlPorts[i]);
            writeSetHosts.add(network.address(node) + ":" + writeSetPorts[i]);
        }
        Path secret = GroupSecurity.newSecret(directory);
        Map<String, Object> security = GroupSecurity.settings(secret);
        err.printf(
                "starting %s and %d node(s) (logs in %s) ...%n",
                schedulerNames.size() == 1 ? "the scheduler" : schedulerNames.size() + " schedulers (one standing by)",
                plan.replicas(),
                directory);
        // One after the other: the first to join is the active one, the others stand by (docs/protocol.md).
        for (int i = 0; i < schedulerNames.size(); i++) {
            ChildProcess schedulerProcess =
                    launchScheduler(schedulerNames.get(i), schedulerPorts[i], controlHosts, security, null);
            children.awaitReady(schedulerProcess, SCHEDULER_READY, 0);
        }

        if (plan.frontend() != null) {
            // Before the nodes start: each checks, when it starts, that it can log in as the roles it serves.
            FrontendRole.create(
                    plan.jdbcUrls(),
                    plan.frontend().user(),
                    ClassifierRules.loadConfigured(plan.rules().toString())
                            .procedures()
                            .keySet(),
                    frontendRolePassword());
        }
        List<ChildProcess> nodes = new ArrayList<>();
        for (int i = 0; i < plan.replicas(); i++) {
            nodes.add(launchNode(i, controlPorts[i], controlHosts, writeSetPorts[i], writeSetHosts, security, null));
        }
        for (ChildProcess node : nodes) {
            children.awaitReady(node, NODE_READY, 0);
        }
        clients.setClient(clients.connect(schedulerPorts, secret, null, plan.replicas(), Duration.ZERO));
        if (plan.sites() != null) {
            // One scheduler serving every site (compare --sites): the other sites' clients call it from afar.
            clients.addSiteClient(clients.client());
            Duration distance = Duration.ofMillis(plan.sites().delayMillis());
            for (int s = 1; s < plan.sites().count(); s++) {
                clients.addSiteClient(clients.connect(schedulerPorts, secret, null, plan.replicas(), distance));
            }
        }
        if (plan.frontend() != null) {
            launchFrontend(directory, controlHosts, security);
        }
    }

    /**
     * Writes scheduler {@code name}'s configuration and starts it, listening on {@code port} in the control group of
     * {@code controlHosts}; {@code siteSection}: its {@code site} section, or null for a single-site cluster.
     */
    private ChildProcess launchScheduler(
            String name,
            int port,
            List<String> controlHosts,
            Map<String, Object> security,
            Map<String, Object> siteSection)
            throws IOException {
        Map<String, Object> scheduler = new LinkedHashMap<>();
        scheduler.put(
                "control", Map.of("bind", plan.network().address(name) + ":" + port, "initialHosts", controlHosts));
        scheduler.put("rules", plan.rules().toAbsolutePath().toString());
        scheduler.put("mode", plan.mode().configName());
        scheduler.put("isolation", plan.isolation().configName());
        if (security != null) {
            scheduler.put("clusterSecurity", security);
        }
        if (siteSection != null) {
            scheduler.put("site", siteSection);
        }
        Path config = plan.directory().resolve(name + ".yaml");
        ConfigFiles.write(config, scheduler);
        List<String> command = new ArrayList<>(List.of("scheduler", "--config", config.toString()));
        if (siteSection != null) {
            // A site scheduler's agreement counters (dependency cycles of the abort-free agreement) for result.json.
            Path statistics = plan.directory().resolve(name + "-stats.json");
            Files.deleteIfExists(statistics);
            schedulerStatisticsFiles.add(statistics);
            command.addAll(List.of("--stats-file", statistics.toString()));
        }
        return launch(name, command, plan.directory().resolve(name + ".log"), SCHEDULER_READY);
    }

    /** Writes node {@code index}'s configuration and starts it ({@code site}: its site, or null). */
    private ChildProcess launchNode(
            int index,
            int controlPort,
            List<String> controlHosts,
            int writeSetPort,
            List<String> writeSetHosts,
            Map<String, Object> security,
            String site)
            throws IOException {
        Path directory = plan.directory();
        String name = "node-" + (index + 1);
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("name", name);
        ClusterNetwork network = plan.network();
        node.put("jdbcUrl", network.databaseUrl(plan.jdbcUrls().get(index)));
        node.put("workers", plan.workers());
        node.put("appliers", plan.appliers());
        node.put("applyGroup", plan.applyGroup());
        node.put("rules", plan.rules().toAbsolutePath().toString());
        node.put("mode", plan.mode().configName());
        node.put("isolation", plan.isolation().configName());
        node.put("control", Map.of("bind", network.address(name) + ":" + controlPort, "initialHosts", controlHosts));
        node.put(
                "writeSets", Map.of("bind", network.address(name) + ":" + writeSetPort, "initialHosts", writeSetHosts));
        node.put("replicas", plan.nodeNames());
        Path dataDir = directory.resolve(name + "-data");
        // A local cluster always starts a new write-set log. A copy an earlier run left in this directory (the
        // same --out) would be replayed into these databases, which never held it.
        Directories.deleteRecursively(dataDir);
        node.put("dataDir", dataDir.toAbsolutePath().toString());
        node.put("logFsync", plan.durableLog());
        List<String> peers = new ArrayList<>(
                plan.jdbcUrls().stream().map(network::databaseUrl).toList());
        peers.remove(index);
        node.put("peers", peers); // to rebuild from, should this replica ever hold what they do not
        Path statistics = directory.resolve(name + "-stats.json");
        Files.deleteIfExists(statistics);
        statisticsFiles.add(statistics);
        node.put("statsFile", statistics.toString());
        if (security != null) {
            node.put("clusterSecurity", security);
        }
        if (plan.frontend() != null) {
            // The front end's user runs as the role of its name, never as this node's login (docs/frontend.md).
            node.put(
                    "roles",
                    List.of(Map.of(
                            "name",
                            plan.frontend().user(),
                            "passwordFile",
                            frontendRolePassword().toAbsolutePath().toString())));
        }
        if (site != null) {
            node.put("site", site);
            SitesPlan sites = plan.sites();
            boolean siteLog = sites.acknowledgement() == Acknowledgement.SITE;
            if (siteLog) {
                node.put("writeSetLog", sites.acknowledgement().writeSetLog());
            }
            if (sites.delayMillis() > 0 || siteLog) {
                // The write-set log crosses sites too: what this node receives from another site's nodes is delayed.
                Map<String, String> siteOfReplicas = new LinkedHashMap<>();
                for (int other = 0; other < plan.replicas(); other++) {
                    siteOfReplicas.put("node-" + (other + 1), sites.names().get(sites.siteOfNode(other)));
                }
                Map<String, Integer> delays = new LinkedHashMap<>();
                sites.names().stream()
                        .filter(other -> !other.equals(site))
                        .forEach(other -> delays.put(other, sites.delayMillis()));
                node.put("siteOfReplicas", siteOfReplicas);
                node.put("siteDelayMillis", delays);
            }
        }
        Path config = directory.resolve(name + ".yaml");
        ConfigFiles.write(config, node);
        return launch(
                name, List.of("node", "--config", config.toString()), directory.resolve(name + ".log"), NODE_READY);
    }

    /**
     * Several sites (docs/multisite.md): per site a scheduler with a {@code site} section and its nodes, in the site's
     * own control group; the schedulers' schedule log among them with the plan's delay between sites; one write-set log
     * across every node; and a client per site.
     */
    private void launchSites(PrintStream err) throws IOException, InterruptedException {
        SitesPlan sites = plan.sites();
        Path directory = Files.createDirectories(plan.directory());
        Path secret = GroupSecurity.newSecret(directory);
        Map<String, Object> security = GroupSecurity.settings(secret);
        List<String> names = sites.names();
        int[] schedulerPorts = new int[names.size()];
        int[] schedulePorts = new int[names.size()];
        List<String> scheduleHosts = new ArrayList<>();
        for (int s = 0; s < names.size(); s++) {
            schedulerPorts[s] = LoopbackPorts.pick();
            schedulePorts[s] = LoopbackPorts.pick();
            scheduleHosts.add("127.0.0.1:" + schedulePorts[s]);
        }
        int[] controlPorts = new int[plan.replicas()];
        int[] writeSetPorts = new int[plan.replicas()];
        List<String> writeSetHosts = new ArrayList<>();
        List<List<String>> controlHosts = new ArrayList<>();
        for (int s = 0; s < names.size(); s++) {
            controlHosts.add(new ArrayList<>(List.of("127.0.0.1:" + schedulerPorts[s])));
        }
        for (int i = 0; i < plan.replicas(); i++) {
            controlPorts[i] = LoopbackPorts.pick();
            writeSetPorts[i] = LoopbackPorts.pick();
            controlHosts.get(sites.siteOfNode(i)).add("127.0.0.1:" + controlPorts[i]);
            writeSetHosts.add("127.0.0.1:" + writeSetPorts[i]);
        }
        err.printf(
                "starting %d sites (%s agreement, %d ms apart), each a scheduler and %d node(s) (logs in %s) ...%n",
                names.size(), sites.agreement(), sites.delayMillis(), sites.replicasPerSite(), directory);
        List<ChildProcess> schedulers = new ArrayList<>();
        for (int s = 0; s < names.size(); s++) {
            String site = names.get(s);
            Map<String, Object> delays = new LinkedHashMap<>();
            for (String other : names) {
                if (!other.equals(site)) {
                    delays.put(other, sites.delayMillis());
                }
            }
            Map<String, Object> siteSection = new LinkedHashMap<>();
            siteSection.put("name", site);
            siteSection.put("sites", names);
            siteSection.put("schedule", Map.of("bind", "127.0.0.1:" + schedulePorts[s], "initialHosts", scheduleHosts));
            siteSection.put("agreement", sites.agreement());
            if (sites.owned()) {
                siteSection.put("owners", sites.owners());
            }
            siteSection.put("delayMillis", delays);
            // On disk, so that a site scheduler killed and started again (chaos) comes back as the member of the
            // schedule log it was: Raft counts on a member's log, term and vote surviving it. A new cluster, a new log.
            Path scheduleLog = scheduleLogDirectory(plan.schedulerNames().get(s));
            Directories.deleteRecursively(scheduleLog);
            siteSection.put("logDir", scheduleLog.toAbsolutePath().toString());
            siteSection.put("logFsync", plan.durableLog());
            schedulers.add(launchScheduler(
                    plan.schedulerNames().get(s), schedulerPorts[s], controlHosts.get(s), security, siteSection));
        }
        for (ChildProcess scheduler : schedulers) {
            // Together: the schedule log needs a majority of the sites.
            children.awaitReady(scheduler, SCHEDULER_READY, 0);
        }
        List<ChildProcess> nodes = new ArrayList<>();
        for (int i = 0; i < plan.replicas(); i++) {
            int site = sites.siteOfNode(i);
            nodes.add(launchNode(
                    i,
                    controlPorts[i],
                    controlHosts.get(site),
                    writeSetPorts[i],
                    writeSetHosts,
                    security,
                    names.get(site)));
        }
        for (ChildProcess node : nodes) {
            children.awaitReady(node, NODE_READY, 0);
        }
        for (int s = 0; s < names.size(); s++) {
            clients.addSiteClient(clients.connect(
                    new int[] {schedulerPorts[s]}, secret, names.get(s), sites.replicasPerSite(), Duration.ZERO));
        }
        clients.setClient(clients.client(0));
    }

    /**
     * The front end, a client of the control group like the library: started once the nodes serve, so that its
     * first clients find a cluster. Its configuration holds the password (the front end keeps only a verifier of it),
     * so the file is readable by its owner only.
     */
    private void launchFrontend(Path directory, List<String> controlHosts, Map<String, Object> security)
            throws IOException, InterruptedException {
        FrontendPlan frontend = plan.frontend();
        int port = frontend.port() == 0 ? LoopbackPorts.pick() : frontend.port();
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("listen", frontend.host() + ":" + port);
        config.put(
                "control",
                Map.of(
                        "bind",
                        plan.network().address(ChildProcesses.FRONTEND) + ":" + LoopbackPorts.pick(),
                        "initialHosts",
                        controlHosts));
        config.put("rules", plan.rules().toAbsolutePath().toString());
        if (frontend.trust()) {
            config.put("authentication", "trust");
        } else {
            config.put("users", List.of(Map.of("name", frontend.user(), "password", frontend.password())));
        }
        if (frontend.catalog() != null) {
            config.put("catalog", frontend.catalog());
        }
        if (security != null) {
            config.put("clusterSecurity", security);
        }
        Path file = directory.resolve("frontend.yaml");
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the directory's own protection is all there is.
        }
        ConfigFiles.write(file, config);
        ChildProcess process = launch(
                ChildProcesses.FRONTEND,
                List.of("frontend", "--config", file.toString()),
                directory.resolve("frontend.log"),
                FRONTEND_READY);
        children.awaitReady(process, FRONTEND_READY, 0);
        frontendPort = port;
    }

    /** The password of the front-end user's database role (FrontendRole), readable by its owner only. */
    private Path frontendRolePassword() {
        return plan.directory().resolve("frontend-role.password");
    }

    /** The port the front end listens on; an IllegalStateException when the plan has none. */
    public int frontendPort() {
        if (frontendPort == 0) {
            throw new IllegalStateException("this cluster runs no front end");
        }
        return frontendPort;
    }

    /** Starts process {@code name} with {@code arguments}, under its place in the plan's network. */
    private ChildProcess launch(String name, List<String> arguments, Path log, String readyMarker) throws IOException {
        return children.start(
                name, new Launch(plan.network().launchPrefix(name), List.copyOf(arguments), log, readyMarker));
    }

    /** Environment variable that turns the groups' security off for a run (measurements only). */
    public static final String SECURITY_VARIABLE = "GARGAMEL_CLUSTER_SECURITY";

    /** The names of the schedulers' processes (scheduler, scheduler-2, ...): the first one started is active. */
    public List<String> schedulerNames() {
        return plan.schedulerNames();
    }

    /** The names of the nodes' processes (node-1, ...), in order. */
    public List<String> nodeNames() {
        return plan.nodeNames();
    }

    /**
     * The pids of the running processes by role ({@code scheduler}, {@code nodes}, {@code frontend}), for the run's CPU
     * accounting ({@code ProcessCpuMeter}).
     */
    public Map<String, List<Long>> processIdsByRole() {
        return children.processIdsByRole(plan.nodeNames());
    }

    /** The pid of each running process by its name (scheduler, scheduler-2, node-1, ..., frontend). */
    public Map<String, Long> processIdsByName() {
        return children.processIdsByName();
    }

    /** Each node's data directory (its write-set log, snapshots and statistics), by node name. */
    public Map<String, java.nio.file.Path> nodeDataDirectories() {
        Map<String, java.nio.file.Path> directories = new java.util.LinkedHashMap<>();
        for (String node : plan.nodeNames()) {
            directories.put(node, plan.directory().resolve(node + "-data"));
        }
        return directories;
    }

    /**
     * Kills process {@code name} (scheduler or node-N) with SIGKILL, as a crash would: no shutdown hook runs, nothing is
     * flushed. Its death is not a failure of the cluster; {@link #restart} starts it again. Returns its pid.
     */
    public long kill(String name) throws InterruptedException {
        return children.kill(name);
    }

    /**
     * Starts process {@code name} again with the same command and configuration (its log goes on in the same file) and
     * waits until it says it is ready; a node is ready once it has caught up with the write-set log.
     */
    public void restart(String name) throws IOException, InterruptedException {
        children.restart(name);
    }

    /**
     * Cuts node {@code name} off from every other process and from its database (a partition) until {@link #heal};
     * only for a cluster whose nodes live in network namespaces ({@link ClusterNetwork.Namespaced}).
     */
    public void cut(String name) throws IOException, InterruptedException {
        namespaced().cut(name);
    }

    /** Ends the partition {@link #cut} made. */
    public void heal(String name) throws IOException, InterruptedException {
        namespaced().heal(name);
    }

    private ClusterNetwork.Namespaced namespaced() {
        if (plan.network() instanceof ClusterNetwork.Namespaced namespaced) {
            return namespaced;
        }
        throw new IllegalStateException("this cluster's nodes share this host's loopback: nothing can be cut off");
    }

    /**
     * {@link #restart}s site scheduler {@code name} as a new machine would start it: its copy of the schedule log (its
     * {@code site.logDir}) deleted first (docs/multisite.md, A site scheduler's failover).
     */
    public void restartWithoutItsScheduleLog(String name) throws IOException, InterruptedException {
        if (plan.sites() == null || !plan.schedulerNames().contains(name)) {
            throw new IllegalArgumentException(name + " is not a site scheduler (only they have a schedule log)");
        }
        Directories.deleteRecursively(scheduleLogDirectory(name));
        restart(name);
    }

    /** Where site scheduler {@code name} keeps its copy of the schedule log. */
    private Path scheduleLogDirectory(String name) {
        return plan.directory().resolve(name + "-schedule-log");
    }

    /** An executor for a terminal; all share this cluster's client. */
    @Override
    public CallExecutor executor() {
        return new GargamelExecutor(clients.client());
    }

    /** With several sites: an executor for a terminal of site {@code site} (0-based), through that site's client. */
    public CallExecutor executor(int site) {
        return new GargamelExecutor(clients.client(site));
    }

    /** The plan's sites, or null for one site. */
    public SitesPlan sites() {
        return plan.sites();
    }

    @Override
    public GargamelClient client() {
        return clients.client();
    }

    /** With several sites: the client of site {@code site} (0-based). */
    public GargamelClient client(int site) {
        return clients.client(site);
    }

    /** Called (once) if a process of the cluster dies before {@link #stop()}. */
    @Override
    public void onFailure(Runnable listener) {
        children.onFailure(listener);
    }

    /** Why the cluster failed during the run, or null. */
    @Override
    public String failure() {
        return children.failure();
    }

    /**
     * With a write-set log per site: how long after the schedulers were quiet every replica had what the sites
     * shipped each other (null before {@link #awaitQuiescence}, or with one log).
     */
    public Duration shippingDrain() {
        return clients.shippingDrain();
    }

    @Override
    public void awaitQuiescence(Duration timeout) throws InterruptedException {
        clients.awaitQuiescence(timeout);
    }

    /** What the site schedulers counted, read from the files they wrote when they stopped (after {@link #stop}). */
    public ClusterStatistics schedulerStatistics() {
        return ClusterStatistics.read(schedulerStatisticsFiles);
    }

    /** Stops the client and the processes (the nodes write their statistics) and returns those statistics. */
    @Override
    public ClusterStatistics stop() {
        close();
        return ClusterStatistics.read(statisticsFiles);
    }

    @Override
    public void close() {
        if (!children.beginStopping()) {
            return;
        }
        clients.close();
        // Nodes first (they flush statistics), then the scheduler; in parallel, each SIGTERM then SIGKILL.
        children.stopAll();
    }
}
