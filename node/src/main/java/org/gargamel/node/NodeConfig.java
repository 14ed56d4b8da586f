package org.gargamel.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.ClusterSecuritySettings;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
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
 * In Java the keys are grouped in sections, one record each: {@link DatabaseSettings}, {@link LogSettings},
 * {@link ApplySettings}, {@link AdhocSettings}, {@link SiteSettings} (the file keeps its flat keys). Tests and
 * programmatic callers build one with {@link #builder()} (defaults as the file's) or change one with
 * {@link #toBuilder()}.
 */
public record NodeConfig(
        String name,
        String rules,
        Mode mode,
        Isolation isolation,
        int workers,
        RulesCheck rulesCheck,
        int incrementProbe,
        DatabaseSettings database,
        GroupSettings control,
        GroupSettings writeSets,
        ClusterSecuritySettings clusterSecurity,
        LogSettings log,
        ApplySettings apply,
        AdhocSettings adhoc,
        SiteSettings site,
        RoleLogins roles,
        String statsFile) {

    /** The default of {@code adhocMaxRows}: a read returning more is refused (54000) rather than held in memory. */
    public static final int DEFAULT_ADHOC_MAX_ROWS = AdhocSettings.DEFAULT_MAX_ROWS;

    /** The default of {@code adhocMaxCharacters}. */
    public static final long DEFAULT_ADHOC_MAX_CHARACTERS = AdhocSettings.DEFAULT_MAX_CHARACTERS;

    /** The default of {@code adhocStatementTimeoutSeconds}. */
    public static final int DEFAULT_ADHOC_TIMEOUT_SECONDS = AdhocSettings.DEFAULT_TIMEOUT_SECONDS;

    /**
     * The default of {@code incrementProbe}: each node start probes the first 10 calls of each procedure declaring
     * {@code add:} (three executions instead of one each; docs/node.md, Increments). 100 made every update call of an
     * 8 s {@code compare --quick} run a probed one (about 100 per procedure and node), a third of its throughput.
     */
    public static final int DEFAULT_INCREMENT_PROBE = 10;

    /** The default of {@code appliers}: one connection applies the write-sets, in log order. */
    public static final int DEFAULT_APPLIERS = ApplySettings.DEFAULT_APPLIERS;

    /** The default of {@code applyGroup}. */
    public static final int DEFAULT_APPLY_GROUP = ApplySettings.DEFAULT_APPLY_GROUP;

    /** A builder with every setting at the file's default; name, URL, rules, groups and replicas have none. */
    public static NodeConfigBuilder builder() {
        return new NodeConfigBuilder();
    }

    /** A builder holding every setting of this configuration, to change some. */
    public NodeConfigBuilder toBuilder() {
        return new NodeConfigBuilder(this);
    }

    /** The file's keys, flat: a key left out takes the builder's default. */
    @JsonCreator
    static NodeConfig fromFile(
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
            @JsonProperty("siteOfReplicas") Map<String, String> siteOfReplicas,
            @JsonProperty("siteDelayMillis") Map<String, Integer> siteDelayMillis,
            @JsonProperty("writeSetLog") String writeSetLog,
            @JsonProperty("roles") List<RoleLogin> roles,
            @JsonProperty("allowPrivilegedRoles") Boolean allowPrivilegedRoles,
            @JsonProperty("adhocMaxRows") Integer adhocMaxRows,
            @JsonProperty("adhocMaxCharacters") Long adhocMaxCharacters) {
        NodeConfigBuilder builder = builder()
                .name(name)
                .jdbcUrl(jdbcUrl)
                .login(user, password)
                .rules(rules)
                .control(control)
                .writeSets(writeSets)
                .replicas(replicas)
                .dataDir(dataDir, logFsync == null || logFsync)
                .statsFile(statsFile)
                .clusterSecurity(clusterSecurity)
                .site(site)
                .siteLog(siteLog(writeSetLog));
        ifGiven(workers, builder::workers);
        ifGiven(mode, builder::mode);
        ifGiven(isolation, builder::isolation);
        ifGiven(peers, builder::peers);
        ifGiven(rulesCheck, builder::rulesCheck);
        ifGiven(adhocReads, builder::adhocReads);
        ifGiven(adhocStatementTimeoutSeconds, builder::adhocStatementTimeoutSeconds);
        ifGiven(adhocMaxRows, builder::adhocMaxRows);
        ifGiven(adhocMaxCharacters, builder::adhocMaxCharacters);
        ifGiven(incrementProbe, builder::incrementProbe);
        ifGiven(appliers, builder::appliers);
        ifGiven(applyGroup, builder::applyGroup);
        ifGiven(siteOfReplicas, builder::siteOfReplicas);
        ifGiven(siteDelayMillis, builder::siteDelayMillis);
        builder.roles(new RoleLogins(
                roles == null ? List.of() : roles, allowPrivilegedRoles != null && allowPrivilegedRoles));
        return builder.build();
    }

    private static <T> void ifGiven(T value, java.util.function.Consumer<T> set) {
        if (value != null) {
            set.accept(value);
        }
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

    public static NodeConfig read(Path file) {
        return ConfigFiles.readWithRules(
                file,
                NodeConfig.class,
                NodeConfig::rules,
                (config, rulesFile) -> config.toBuilder()
                        .rules(rulesFile)
                        .clusterSecurity(config.clusterSecurity == null ? null : config.clusterSecurity.besides(file))
                        .roles(config.roles.besides(file))
                        .build(),
                NodeConfig::validate);
    }

    /** Checks every key once, so a running node never meets a bad setting; the messages name the file's keys. */
    public NodeConfig validate() {
        if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new ConfigException("key 'name' is required: 1 to 64 letters, digits, '.', '_' or '-' (got "
                    + (name == null ? "nothing" : "'" + name + "'") + ")");
        }
        if (name.equals("scheduler") || name.startsWith("client-")) {
            throw new ConfigException("key 'name': '" + name + "' is reserved for the scheduler or clients");
        }
        database.validateLogin();
        if (workers < 1 || workers > 256) {
            throw new ConfigException("key 'workers' must be between 1 and 256, got " + workers);
        }
        validateGroups();
        log.validate(name);
        database.validatePeers();
        if (rulesCheck == null) {
            throw new ConfigException("key 'rulesCheck' must be warn, reject or off");
        }
        adhoc.validate();
        if (incrementProbe < 0) {
            throw new ConfigException("key 'incrementProbe' must be 0 (never probe) or more, got " + incrementProbe);
        }
        apply.validate();
        site.validate(name, log.replicas(), mode, isolation);
        roles.validate();
        loadRules();
        return this;
    }

    private void validateGroups() {
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
                clusterSecurity, Map.of("control", control, "writeSets", writeSets));
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
    }

    /** The control group's channel settings, with the cluster's secret if configured. */
    public GroupConfig controlGroup() {
        return control.toGroupConfig("control").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    /** The write-set log's channel settings, with the cluster's secret if configured. */
    public GroupConfig writeSetGroup() {
        return writeSets.toGroupConfig("writeSets").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    /** The control group's cluster: the site's own one when sites are configured. */
    public String controlCluster() {
        return site.controlCluster();
    }

    /** The write-set log's cluster: one for all replicas, or the site's own with a log per site. */
    public String writeSetCluster() {
        return site.writeSetCluster();
    }

    /** The name of the site this node serves (null: a single-site cluster). */
    public String siteName() {
        return site.name();
    }

    /** Whether the write-set log is the site's own, shipped to and from the other sites' logs. */
    public boolean siteLog() {
        return site.logPerSite();
    }

    /** The replicas of {@code aSite}, in the order of key {@code replicas}. */
    public List<String> replicasOf(String aSite) {
        return site.replicasOf(aSite, log.replicas());
    }

    /** With a log per site: the other sites, whose logs this node follows (as a learner) and ships from. */
    public SortedSet<String> otherSites() {
        return site.otherSites();
    }

    /** What this node's write-set log channel delays ({@link SiteDelay}); none unless configured. */
    public SiteDelay.Links writeSetLinks() {
        return site.writeSetLinks();
    }

    /** Whether write-sets are applied by several connections at once: asked for, and not round-robin's. */
    public boolean appliesInParallel() {
        return apply.appliers() > 1 && mode != Mode.ROUND_ROBIN;
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

    /** True in SI mode: commits follow the total order. */
    public boolean si() {
        return isolation == Isolation.SI;
    }

    /** The write-set log's consensus settings of this node: of its site's replicas with a log per site. */
    public RaftSettings raftSettings() {
        return new RaftSettings(
                name,
                site.logMembers(log.replicas()),
                log.dataDir() == null ? null : Path.of(log.dataDir()).resolve("log"),
                log.fsync());
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
                log.dataDir() == null ? null : Path.of(log.dataDir()).resolve("log-" + otherSite),
                false,
                true);
    }

    public ClassifierRules loadRules() {
        return ClassifierRules.loadConfigured(rules);
    }

    /** Without passwords ({@link DatabaseSettings#toString}, {@link RoleLogins#toString}). */
    @Override
    public String toString() {
        return "NodeConfig[name=" + name + ", " + database + ", workers=" + workers + ", mode=" + mode
                + ", isolation=" + isolation + ", rules=" + rules + ", rulesCheck=" + rulesCheck + ", incrementProbe="
                + incrementProbe + ", control=" + control + ", writeSets=" + writeSets + ", clusterSecurity="
                + clusterSecurity + ", log=" + log + ", apply=" + apply + ", adhoc=" + adhoc + ", site=" + site
                + ", roles=" + roles + ", statsFile=" + statsFile + "]";
    }
}
