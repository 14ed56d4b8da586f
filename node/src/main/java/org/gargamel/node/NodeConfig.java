package org.gargamel.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.ClusterSecuritySettings;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.group.SiteDelay;
import org.gargamel.node.access.RoleLogin;
import org.gargamel.node.access.RoleLogins;

/**
 * A node's configuration file (docs/node.md):
 * <pre>
 * name: node-1                      # unique, stable; the scheduler addresses workers as (name, index)
 * jdbcUrl: jdbc:postgresql://127.0.0.1:5432/tpcc?user=gargamel&amp;password=secret
 * user: gargamel                    # optional, instead of user= in the URL
 * password: secret                  # optional, instead of password= in the URL
 * workers: 4                        # connections running chains
 * mode: gargamel                    # gargamel | round-robin (certification) | centralized; as the scheduler's
 * isolation: psi                    # psi | si; as the scheduler's
 * rules: my-rules.yaml              # required: the classifier rules, as the scheduler's; checked against the database
 * control:   {bind: 127.0.0.1:7810, initialHosts: [127.0.0.1:7800, 127.0.0.1:7810]}
 * writeSets: {bind: 127.0.0.1:7811, initialHosts: [127.0.0.1:7811, 127.0.0.1:7821]}
 * replicas: [node-1, node-2, node-3] # required: every node's name, the same list at every node (the write-set
 *                                    # log commits an entry once a majority of them hold it)
 * dataDir: /var/lib/gargamel/node-1 # optional; where the write-set log is kept (default: in memory)
 * logFsync: true                    # optional; force each log append to disk (default true)
 * statsFile: out/node-1.json        # optional; counters and timings written when the node stops
 * peers: [jdbc:postgresql://10.0.0.2:5432/tpcc?user=gargamel, ...]
 *                                    # optional; the other replicas' databases, to rebuild this one from when it
 *                                    # holds what they do not (docs/node.md, Rebuild); read only, one snapshot
 * rulesCheck: reject                # optional; warn | reject | off: what a write outside the call's rule does
 *                                    # (default reject; gargamel mode only; docs/classifier.md)
 * adhocReads: true                  # optional; run the front end's ad-hoc read-only queries (default true)
 * adhocStatementTimeoutSeconds: 30  # optional; an ad-hoc query running longer is cancelled (57014; default 30)
 * adhocMaxRows: 100000              # optional; an ad-hoc query returning more rows is refused (54000)
 * adhocMaxCharacters: 16777216     # optional; ... or more characters of values in text (54000; default 16 Mi)
 * clusterSecurity: {secretFile: cluster.secret}   # optional: the groups' shared secret (docs/protocol.md)
 * incrementProbe: 10                # optional; probe the first N calls of each procedure declaring add: for pure
 *                                    # additions (default 10; 0: never; docs/node.md, Increments)
 * appliers: 4                       # optional; connections applying other replicas' write-sets in parallel, row
 *                                    # by row (default 1; round-robin always 1; docs/node.md, Parallel apply)
 * applyGroup: 32                    # optional; at most this many write-sets already delivered are applied in one
 *                                    # transaction (default 32; 1: each in its own; one applier only; docs/node.md,
 *                                    # Apply groups)
 * site: eu                          # optional; the site this node serves (docs/multisite.md): it joins the site's
 *                                    # control group and follows only that site's scheduler; psi and gargamel only
 * siteOfReplicas: {node-1: eu, node-2: us}   # optional, with siteDelayMillis (tests, demos on one machine): every
 * siteDelayMillis: {us: 50}                  # replica's site, and the delay of what this node's write-set log receives
 *                                            # from each other site
 * roles:                           # optional; the database roles calls and ad-hoc reads may run as (a front end
 *   - {name: app}                   # maps its users to them; docs/frontend.md, Security); the node logs in as each
 *   - {name: clerk, passwordFile: clerk.password}   # for reads (no password: trust/peer), and checks at start that
 *                                    # none is privileged
 * allowPrivilegedRoles: false       # optional; true: serve a privileged role all the same (a superuser...)
 * writeSetLog: site                 # optional; cluster | site (default cluster). site: a write-set log per site, of
 *                                    # the site's replicas (needs siteOfReplicas): a call is acknowledged once its
 *                                    # site holds it, and each site's entries are shipped to the others
 *                                    # (docs/multisite.md, Site-local acknowledgement)
 * </pre>
 */
public record NodeConfig(
        String name,
        String jdbcUrl,
        int workers,
        Mode mode,
        Isolation isolation,
        String rules,
        GroupSettings control,
        GroupSettings writeSets,
        List<String> replicas,
        String dataDir,
        boolean logFsync,
        String statsFile,
        String user,
        String password,
        List<String> peers,
        RulesCheck rulesCheck,
        boolean adhocReads,
        int adhocStatementTimeoutSeconds,
        ClusterSecuritySettings clusterSecurity,
        int incrementProbe,
        int appliers,
        int applyGroup,
        String site,
        java.util.Map<String, String> siteOfReplicas,
        java.util.Map<String, Integer> siteDelayMillis,
        boolean siteLog,
        RoleLogins roles,
        int adhocMaxRows,
        long adhocMaxCharacters) {

    /** The default of {@code adhocMaxRows}: a read returning more is refused (54000) rather than held in memory. */
    public static final int DEFAULT_ADHOC_MAX_ROWS = org.gargamel.node.execution.AdHocReads.DEFAULT_MAX_ROWS;

    /** The default of {@code adhocMaxCharacters}. */
    public static final long DEFAULT_ADHOC_MAX_CHARACTERS =
            org.gargamel.node.execution.AdHocReads.DEFAULT_MAX_CHARACTERS;

    /** The default of {@code adhocStatementTimeoutSeconds}. */
    public static final int DEFAULT_ADHOC_TIMEOUT_SECONDS = 30;

    /**
     * The default of {@code incrementProbe}: each node start probes the first 10 calls of each procedure declaring
     * {@code add:} (three executions instead of one each; docs/node.md, Increments). 100 made every update call of an
     * 8 s {@code compare --quick} run a probed one (about 100 per procedure and node), a third of its throughput.
     */
    public static final int DEFAULT_INCREMENT_PROBE = 10;

    /** The default of {@code appliers}: one connection applies the write-sets, in log order. */
    public static final int DEFAULT_APPLIERS = 1;

    /** The default of {@code applyGroup}. */
    public static final int DEFAULT_APPLY_GROUP = 32;

    @JsonCreator
    public NodeConfig(
            @JsonProperty("name") String name,
            @JsonProperty("jdbcUrl") String jdbcUrl,
            @JsonProperty("workers") Integer workers,
            @JsonProperty("mode") Mode mode,
            @JsonProperty("isolation") Isolation isolation,
            @JsonProperty("rules") String rules,
            @JsonProperty("control") GroupSettings control,
            @JsonProperty("writeSets") GroupSettings writeSets,
            @JsonProperty("replicas") List<String> replicas,
            @JsonProperty("dataDir") String dataDir,
            @JsonProperty("logFsync") Boolean logFsync,
            @JsonProperty("statsFile") String statsFile,
            @JsonProperty("user") String user,
            @JsonProperty("password") String password,
            @JsonProperty("peers") List<String> peers,
            @JsonProperty("rulesCheck") RulesCheck rulesCheck,
            @JsonProperty("adhocReads") Boolean adhocReads,
            @JsonProperty("adhocStatementTimeoutSeconds") Integer adhocStatementTimeoutSeconds,
            @JsonProperty("clusterSecurity") ClusterSecuritySettings clusterSecurity,
            @JsonProperty("incrementProbe") Integer incrementProbe,
            @JsonProperty("appliers") Integer appliers,
            @JsonProperty("applyGroup") Integer applyGroup,
            @JsonProperty("site") String site,
            @JsonProperty("siteOfReplicas") java.util.Map<String, String> siteOfReplicas,
            @JsonProperty("siteDelayMillis") java.util.Map<String, Integer> siteDelayMillis,
            @JsonProperty("writeSetLog") String writeSetLog,
            @JsonProperty("roles") List<RoleLogin> roles,
            @JsonProperty("allowPrivilegedRoles") Boolean allowPrivilegedRoles,
            @JsonProperty("adhocMaxRows") Integer adhocMaxRows,
            @JsonProperty("adhocMaxCharacters") Long adhocMaxCharacters) {
        this(
                name,
                jdbcUrl,
                workers == null ? 4 : workers.intValue(),
                mode == null ? Mode.GARGAMEL : mode,
                isolation == null ? Isolation.PSI : isolation,
                rules,
                control,
                writeSets,
                replicas == null ? null : List.copyOf(replicas),
                dataDir,
                logFsync == null || logFsync,
                statsFile,
                user,
                password,
                peers == null ? List.of() : List.copyOf(peers),
                rulesCheck == null ? RulesCheck.REJECT : rulesCheck,
                adhocReads == null || adhocReads,
                adhocStatementTimeoutSeconds == null
                        ? DEFAULT_ADHOC_TIMEOUT_SECONDS
                        : adhocStatementTimeoutSeconds.intValue(),
                clusterSecurity,
                incrementProbe == null ? DEFAULT_INCREMENT_PROBE : incrementProbe.intValue(),
                appliers == null ? DEFAULT_APPLIERS : appliers.intValue(),
                applyGroup == null ? DEFAULT_APPLY_GROUP : applyGroup.intValue(),
                site,
                siteOfReplicas == null ? java.util.Map.of() : java.util.Map.copyOf(siteOfReplicas),
                siteDelayMillis == null ? java.util.Map.of() : java.util.Map.copyOf(siteDelayMillis),
                siteLog(writeSetLog),
                new RoleLogins(roles == null ? List.of() : roles, allowPrivilegedRoles != null && allowPrivilegedRoles),
                adhocMaxRows == null ? DEFAULT_ADHOC_MAX_ROWS : adhocMaxRows.intValue(),
                adhocMaxCharacters == null ? DEFAULT_ADHOC_MAX_CHARACTERS : adhocMaxCharacters.longValue());
    }

    private static boolean siteLog(String writeSetLog) {
        if (writeSetLog == null || writeSetLog.equals("cluster")) {
            return false;
        }
        if (writeSetLog.equals("site")) {
            return true;
        }
        throw new ConfigException("key 'writeSetLog' must be cluster or site, got '" + writeSetLog + "'");
    }

    /** Without cluster security. */
    public NodeConfig(
            String name,
            String jdbcUrl,
            int workers,
            Mode mode,
            Isolation isolation,
            String rules,
            GroupSettings control,
            GroupSettings writeSets,
            List<String> replicas,
            String dataDir,
            boolean logFsync,
            String statsFile,
            String user,
            String password,
            List<String> peers,
            RulesCheck rulesCheck,
            boolean adhocReads,
            int adhocStatementTimeoutSeconds) {
        this(
                name,
                jdbcUrl,
                workers,
                mode,
                isolation,
                rules,
                control,
                writeSets,
                replicas,
                dataDir,
                logFsync,
                statsFile,
                user,
                password,
                peers,
                rulesCheck,
                adhocReads,
                adhocStatementTimeoutSeconds,
                null,
                DEFAULT_INCREMENT_PROBE,
                DEFAULT_APPLIERS,
                DEFAULT_APPLY_GROUP,
                null,
                java.util.Map.of(),
                java.util.Map.of(),
                false,
                RoleLogins.NONE,
                DEFAULT_ADHOC_MAX_ROWS,
                DEFAULT_ADHOC_MAX_CHARACTERS);
    }

    /** Without a separate user and password (in the URL, or none), its log in memory. */
    public NodeConfig(
            String name,
            String jdbcUrl,
            int workers,
            Mode mode,
            Isolation isolation,
            String rules,
            GroupSettings control,
            GroupSettings writeSets,
            List<String> replicas,
            String statsFile) {
        this(
                name,
                jdbcUrl,
                workers,
                mode,
                isolation,
                rules,
                control,
                writeSets,
                replicas,
                null,
                true,
                statsFile,
                null,
                null,
                List.of(),
                RulesCheck.REJECT,
                true,
                DEFAULT_ADHOC_TIMEOUT_SECONDS);
    }

    /** The same node on the database at {@code url} (another login to the same replica, say). */
    public NodeConfig withJdbcUrl(String url) {
        return edit(draft -> draft.jdbcUrl = url);
    }

    /** The same node keeping its write-set log in {@code directory} (null: in memory). */
    public NodeConfig withDataDir(String directory, boolean fsync) {
        return edit(draft -> {
            draft.dataDir = directory;
            draft.logFsync = fsync;
        });
    }

    /** The same node, rebuilt from {@code peerUrls} when it must be (see {@link #peers}). */
    public NodeConfig withPeers(List<String> peerUrls) {
        return edit(draft -> draft.peers = List.copyOf(peerUrls));
    }

    /** The same node reacting to a write outside its call's rule with {@code check}. */
    public NodeConfig withRulesCheck(RulesCheck check) {
        return edit(draft -> draft.rulesCheck = check);
    }

    /** The same node with ad-hoc reads on or off, cancelled after {@code timeoutSeconds}. */
    public NodeConfig withAdhocReads(boolean enabled, int timeoutSeconds) {
        return edit(draft -> {
            draft.adhocReads = enabled;
            draft.adhocStatementTimeoutSeconds = timeoutSeconds;
        });
    }

    /**
     * The same node serving database roles {@code logins} (docs/frontend.md, Security): calls and ad-hoc reads that
     * name one run with its privileges.
     */
    public NodeConfig withRoles(RoleLogins logins) {
        return edit(draft -> draft.roles = logins);
    }

    /** The same node probing the first {@code calls} calls of each procedure declaring increments (0: none). */
    public NodeConfig withIncrementProbe(int calls) {
        return edit(draft -> draft.incrementProbe = calls);
    }

    /** The same node applying with {@code connections} connections in parallel (1: in log order, one by one). */
    public NodeConfig withAppliers(int connections) {
        return edit(draft -> draft.appliers = connections);
    }

    /** The same node applying at most {@code writeSets} delivered write-sets in one transaction (1: one each). */
    public NodeConfig withApplyGroup(int writeSets) {
        return edit(draft -> draft.applyGroup = writeSets);
    }

    /** The same node serving site {@code name} (null: a single-site cluster; docs/multisite.md). */
    public NodeConfig withSite(String name) {
        return edit(draft -> draft.site = name);
    }

    /**
     * The same node with its write-set log delayed between sites on one machine (tests, demos): the site of every
     * replica, and this site's one-way delay from each other site, applied to what this node receives.
     */
    public NodeConfig withSiteDelays(
            java.util.Map<String, String> replicaSites, java.util.Map<String, Integer> delays) {
        return edit(draft -> {
            draft.siteOfReplicas = java.util.Map.copyOf(replicaSites);
            draft.siteDelayMillis = java.util.Map.copyOf(delays);
        });
    }

    /**
     * The same node with a write-set log of its own site's replicas ({@code sitesOfReplicas}: every replica's site),
     * shipping to and from the other sites' logs (docs/multisite.md, Site-local acknowledgement).
     */
    public NodeConfig withSiteLog(java.util.Map<String, String> sitesOfReplicas) {
        return edit(draft -> {
            draft.siteOfReplicas = java.util.Map.copyOf(sitesOfReplicas);
            draft.siteLog = true;
        });
    }

    /** The replicas of {@code aSite}, in the order of {@code replicas}. */
    public List<String> replicasOf(String aSite) {
        return replicas.stream()
                .filter(r -> aSite.equals(siteOfReplicas.get(r)))
                .toList();
    }

    /** With a log per site: the other sites, whose logs this node follows (as a learner) and ships from. */
    public java.util.SortedSet<String> otherSites() {
        java.util.SortedSet<String> others = new java.util.TreeSet<>(siteOfReplicas.values());
        others.remove(site);
        return others;
    }

    /** What this node's write-set log channel delays ({@link SiteDelay}); none unless configured. */
    public SiteDelay.Links writeSetLinks() {
        if (site == null || siteDelayMillis.isEmpty()) {
            return SiteDelay.Links.NONE;
        }
        java.util.Map<String, java.time.Duration> between = new java.util.HashMap<>();
        siteDelayMillis.forEach(
                (other, millis) -> between.put(SiteDelay.Links.key(site, other), java.time.Duration.ofMillis(millis)));
        return new SiteDelay.Links(siteOfReplicas, between);
    }

    /** Whether write-sets are applied by several connections at once: asked for, and not round-robin's. */
    public boolean appliesInParallel() {
        return appliers > 1 && mode != Mode.ROUND_ROBIN;
    }

    /**
     * Whether calls ship declared increments as deltas (issue 18): gargamel mode in PSI, where the scheduler lets two
     * increments of one cell run at once. SI keeps whole rows and values; the other modes gain nothing from them.
     */
    public boolean usesIncrements() {
        return mode == Mode.GARGAMEL && isolation == Isolation.PSI;
    }

    /** Whether this node checks each executed call's write-set against its rule: gargamel mode, not turned off. */
    public boolean checksRules() {
        return mode == Mode.GARGAMEL && rulesCheck != RulesCheck.OFF;
    }

    /**
     * Whether the write-set log is on disk and forces each append to it: then the log, held by a majority, makes an
     * acknowledged transaction durable, and the node's commits need not wait for PostgreSQL's WAL flush
     * (docs/node.md, Durability).
     */
    public boolean durableLog() {
        return dataDir != null && logFsync;
    }

    /** The write-set log's consensus settings of this node: of its site's replicas with a log per site. */
    public RaftSettings raftSettings() {
        return new RaftSettings(
                name,
                siteLog ? replicasOf(site) : replicas,
                dataDir == null ? null : Path.of(dataDir).resolve("log"),
                logFsync);
    }

    /**
     * This node as a learner of {@code otherSite}'s write-set log (a log per site): it receives that log's entries to
     * ship them into its own site's log, and neither votes nor counts towards that log's majority. Beside this node's
     * own log when that is on disk ({@code log-<site>}), not forced: what matters of it is shipped into this site's log,
     * and a restarted learner only needs not to be sent the whole log again (in memory it is).
     */
    public RaftSettings learnerSettings(String otherSite) {
        return new RaftSettings(
                name,
                replicasOf(otherSite),
                dataDir == null ? null : Path.of(dataDir).resolve("log-" + otherSite),
                false,
                true);
    }

    /** The write-set log's cluster: one for all replicas, or the site's own with a log per site. */
    public String writeSetCluster() {
        return writeSetCluster(siteLog ? site : null);
    }

    /** The cluster of {@code aSite}'s write-set log (null: the one log of all replicas). */
    public static String writeSetCluster(String aSite) {
        return aSite == null
                ? org.gargamel.common.group.Channels.WRITE_SET_CLUSTER
                : org.gargamel.common.group.Channels.WRITE_SET_CLUSTER + "-" + aSite;
    }

    @Override
    public String toString() {
        return "NodeConfig[name=" + name + ", jdbcUrl=" + Secrets.maskUrl(jdbcUrl)
                + ", workers=" + workers + ", mode=" + mode + ", isolation=" + isolation + ", rules=" + rules
                + ", control=" + control + ", writeSets=" + writeSets + ", replicas=" + replicas + ", dataDir="
                + dataDir
                + ", logFsync=" + logFsync + ", statsFile=" + statsFile + ", user=" + user
                + ", password=" + (password == null ? "null" : "***") + ", peers="
                + peers.stream().map(Secrets::maskUrl).toList() + ", rulesCheck=" + rulesCheck + ", adhocReads="
                + adhocReads
                + ", adhocStatementTimeoutSeconds=" + adhocStatementTimeoutSeconds + ", clusterSecurity="
                + clusterSecurity + ", incrementProbe=" + incrementProbe + ", appliers=" + appliers + ", applyGroup="
                + applyGroup + ", site=" + site + ", siteOfReplicas=" + siteOfReplicas + ", siteDelayMillis="
                + siteDelayMillis + ", siteLog=" + siteLog + ", roles=" + roles + ", adhocMaxRows=" + adhocMaxRows
                + ", adhocMaxCharacters=" + adhocMaxCharacters + "]";
    }

    public static NodeConfig read(Path file) {
        return ConfigFiles.readWithRules(
                file,
                NodeConfig.class,
                NodeConfig::rules,
                (config, rulesFile) -> config.withRules(rulesFile)
                        .withClusterSecurity(
                                config.clusterSecurity == null ? null : config.clusterSecurity.besides(file))
                        .withRoles(config.roles.besides(file)),
                NodeConfig::validate);
    }

    /** The same node with the cluster's secret {@code settings} (null: the groups are open). */
    public NodeConfig withClusterSecurity(ClusterSecuritySettings settings) {
        return edit(draft -> draft.clusterSecurity = settings);
    }

    /** The control group's channel settings, with the cluster's secret if configured. */
    public GroupConfig controlGroup() {
        return control.toGroupConfig("control").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    /** The write-set log's channel settings, with the cluster's secret if configured. */
    public GroupConfig writeSetGroup() {
        return writeSets.toGroupConfig("writeSets").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    public NodeConfig withRules(String rulesFile) {
        return edit(draft -> draft.rules = rulesFile);
    }

    public NodeConfig validate() {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new ConfigException("key 'name' is required: 1 to 64 letters, digits, '.', '_' or '-' (got "
                    + (name == null ? "nothing" : "'" + name + "'") + ")");
        }
        if (name.equals("scheduler") || name.startsWith("client-")) {
            throw new ConfigException("key 'name': '" + name + "' is reserved for the scheduler or clients");
        }
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new ConfigException("key 'jdbcUrl' is required and must start with jdbc:postgresql: (got "
                    + (jdbcUrl == null ? "nothing" : "'" + jdbcUrl + "'") + ")");
        }
        if (password != null && user == null) {
            throw new ConfigException("key 'password' needs key 'user'");
        }
        if ((user != null && jdbcUrl.matches(".*[?&]user=.*"))
                || (password != null && jdbcUrl.matches(".*[?&]password=.*"))) {
            throw new ConfigException("keys 'user'/'password' and 'jdbcUrl' contradict each other: give the user and "
                    + "password either in the URL or as keys, not both");
        }
        if (workers < 1 || workers > 256) {
            throw new ConfigException("key 'workers' must be between 1 and 256, got " + workers);
        }
        if (control == null) {
            throw new ConfigException("key 'control' is required (the control group shared with the scheduler)");
        }
        if (writeSets == null) {
            throw new ConfigException("key 'writeSets' is required (the total-order group shared by the nodes)");
        }
        control.toGroupConfig("control");
        writeSets.toGroupConfig("writeSets");
        ClusterSecuritySettings.loadOrNull(clusterSecurity);
        ClusterSecuritySettings.requireWhereExposed(
                clusterSecurity, java.util.Map.of("control", control, "writeSets", writeSets));
        if (!control.transport().equals(writeSets.transport())) {
            throw new ConfigException("keys 'control.transport' and 'writeSets.transport' contradict each other ("
                    + control.transport() + " and " + writeSets.transport() + ")");
        }
        if (control.bind() != null
                && control.bind().equals(writeSets.bind())
                && !control.bind().endsWith(":0")) {
            throw new ConfigException("keys 'control.bind' and 'writeSets.bind' are both " + control.bind()
                    + ": the two groups need two ports");
        }
        if (replicas == null || replicas.isEmpty()) {
            throw new ConfigException("key 'replicas' is required: the names of all the nodes, the same list at every "
                    + "node (the write-set log commits an entry once a majority of them hold it)");
        }
        if (!replicas.contains(name)) {
            throw new ConfigException("key 'replicas' " + replicas + " does not name this node, '" + name + "'");
        }
        if (replicas.stream().distinct().count() != replicas.size()) {
            throw new ConfigException("key 'replicas' " + replicas + " names a node twice");
        }
        for (String peer : peers) {
            if (peer == null || !peer.startsWith("jdbc:postgresql:")) {
                throw new ConfigException("key 'peers': each one is a JDBC URL starting with jdbc:postgresql: (got "
                        + (peer == null ? "nothing" : "'" + Secrets.maskUrl(peer) + "'") + ")");
            }
            if (peer.equals(jdbcUrl)) {
                throw new ConfigException("key 'peers' names this node's own database, " + Secrets.maskUrl(peer)
                        + ": a replica cannot be rebuilt from itself");
            }
        }
        if (rulesCheck == null) {
            throw new ConfigException("key 'rulesCheck' must be warn, reject or off");
        }
        if (adhocStatementTimeoutSeconds < 1 || adhocStatementTimeoutSeconds > 86_400) {
            throw new ConfigException("key 'adhocStatementTimeoutSeconds' must be between 1 and 86400, got "
                    + adhocStatementTimeoutSeconds);
        }
        if (adhocMaxRows < 1) {
            throw new ConfigException("key 'adhocMaxRows' must be at least 1, got " + adhocMaxRows);
        }
        if (adhocMaxCharacters < 1024) {
            throw new ConfigException("key 'adhocMaxCharacters' must be at least 1024, got " + adhocMaxCharacters);
        }
        if (incrementProbe < 0) {
            throw new ConfigException("key 'incrementProbe' must be 0 (never probe) or more, got " + incrementProbe);
        }
        if (appliers < 1 || appliers > 64) {
            throw new ConfigException("key 'appliers' must be between 1 and 64, got " + appliers);
        }
        if (applyGroup < 1 || applyGroup > 1000) {
            throw new ConfigException("key 'applyGroup' must be between 1 and 1000, got " + applyGroup);
        }
        if (site == null && (!siteOfReplicas.isEmpty() || !siteDelayMillis.isEmpty())) {
            throw new ConfigException("keys 'siteOfReplicas' and 'siteDelayMillis' are for a node with key 'site'");
        }
        if (siteLog && (site == null || siteOfReplicas.isEmpty())) {
            throw new ConfigException(
                    "key 'writeSetLog: site' needs keys 'site' and 'siteOfReplicas' (every replica's" + " site)");
        }
        if (site != null) {
            if (!site.matches("[A-Za-z0-9_.-]{1,32}")) {
                throw new ConfigException(
                        "key 'site' must be 1 to 32 letters, digits, '.', '_' or '-' (got '" + site + "')");
            }
            if (!siteOfReplicas.isEmpty() && !siteOfReplicas.keySet().equals(new java.util.HashSet<>(replicas))) {
                throw new ConfigException("key 'siteOfReplicas' must give the site of every replica " + replicas
                        + " and no other, got " + siteOfReplicas.keySet());
            }
            if (!siteOfReplicas.isEmpty() && !site.equals(siteOfReplicas.get(name))) {
                throw new ConfigException("key 'siteOfReplicas' puts this node in site " + siteOfReplicas.get(name)
                        + ", key 'site' says " + site);
            }
            for (java.util.Map.Entry<String, Integer> delay : siteDelayMillis.entrySet()) {
                if (delay.getKey().equals(site) || !siteOfReplicas.containsValue(delay.getKey())) {
                    throw new ConfigException("key 'siteDelayMillis': '" + delay.getKey() + "' is not another site of"
                            + " 'siteOfReplicas' " + new java.util.TreeSet<>(siteOfReplicas.values()));
                }
                if (delay.getValue() == null || delay.getValue() < 0 || delay.getValue() > 60_000) {
                    throw new ConfigException("key 'siteDelayMillis." + delay.getKey()
                            + "' must be between 0 and 60000 milliseconds, got " + delay.getValue());
                }
            }
            if (mode != Mode.GARGAMEL || isolation != Isolation.PSI) {
                throw new ConfigException("key 'site' needs mode gargamel and isolation psi (multi-site agreement "
                        + "commits a call only once the schedule log placed it; got mode " + mode + ", isolation "
                        + isolation + ")");
            }
        }
        roles.validate();
        loadRules();
        return this;
    }

    /** The control group's cluster: the site's own one when sites are configured. */
    public String controlCluster() {
        return org.gargamel.common.group.Channels.controlCluster(site);
    }

    /** True in SI mode: commits follow the total order. */
    public boolean si() {
        return isolation == Isolation.SI;
    }

    public ClassifierRules loadRules() {
        return ClassifierRules.loadConfigured(rules);
    }

    /** A copy of this configuration with what {@code change} sets on a draft of it (the withers above). */
    private NodeConfig edit(Consumer<Draft> change) {
        Draft draft = new Draft(this);
        change.accept(draft);
        return draft.build();
    }

    /** Every setting of a {@link NodeConfig}, changeable: so that each wither names only what it changes. */
    private static final class Draft {
        String name;
        String jdbcUrl;
        int workers;
        Mode mode;
        Isolation isolation;
        String rules;
        GroupSettings control;
        GroupSettings writeSets;
        List<String> replicas;
        String dataDir;
        boolean logFsync;
        String statsFile;
        String user;
        String password;
        List<String> peers;
        RulesCheck rulesCheck;
        boolean adhocReads;
        int adhocStatementTimeoutSeconds;
        ClusterSecuritySettings clusterSecurity;
        int incrementProbe;
        int appliers;
        int applyGroup;
        String site;
        java.util.Map<String, String> siteOfReplicas;
        java.util.Map<String, Integer> siteDelayMillis;
        boolean siteLog;
        RoleLogins roles;
        int adhocMaxRows;
        long adhocMaxCharacters;

        Draft(NodeConfig config) {
            name = config.name;
            jdbcUrl = config.jdbcUrl;
            workers = config.workers;
            mode = config.mode;
            isolation = config.isolation;
            rules = config.rules;
            control = config.control;
            writeSets = config.writeSets;
            replicas = config.replicas;
            dataDir = config.dataDir;
            logFsync = config.logFsync;
            statsFile = config.statsFile;
            user = config.user;
            password = config.password;
            peers = config.peers;
            rulesCheck = config.rulesCheck;
            adhocReads = config.adhocReads;
            adhocStatementTimeoutSeconds = config.adhocStatementTimeoutSeconds;
            clusterSecurity = config.clusterSecurity;
            incrementProbe = config.incrementProbe;
            appliers = config.appliers;
            applyGroup = config.applyGroup;
            site = config.site;
            siteOfReplicas = config.siteOfReplicas;
            siteDelayMillis = config.siteDelayMillis;
            siteLog = config.siteLog;
            roles = config.roles;
            adhocMaxRows = config.adhocMaxRows;
            adhocMaxCharacters = config.adhocMaxCharacters;
        }

        NodeConfig build() {
            return new NodeConfig(
                    name,
                    jdbcUrl,
                    workers,
                    mode,
                    isolation,
                    rules,
                    control,
                    writeSets,
                    replicas,
                    dataDir,
                    logFsync,
                    statsFile,
                    user,
                    password,
                    peers,
                    rulesCheck,
                    adhocReads,
                    adhocStatementTimeoutSeconds,
                    clusterSecurity,
                    incrementProbe,
                    appliers,
                    applyGroup,
                    site,
                    siteOfReplicas,
                    siteDelayMillis,
                    siteLog,
                    roles,
                    adhocMaxRows,
                    adhocMaxCharacters);
        }
    }
}
