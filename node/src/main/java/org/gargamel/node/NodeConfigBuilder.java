package org.gargamel.node;

import java.util.List;
import java.util.Map;
import org.gargamel.common.config.ClusterSecuritySettings;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.node.access.RoleLogins;

/**
 * The one way to build a {@link NodeConfig} in code (tests, in-process clusters) and to change one: every setting
 * starts at the configuration file's default ({@link NodeConfig#builder()}; NodeConfigBuilderTest) or at another
 * configuration's value ({@link NodeConfig#toBuilder()}), and each setter names one file key (or two that go
 * together). {@link #build} assembles the sections; it does not validate ({@link NodeConfig#validate} does, as the
 * node does at start).
 */
public final class NodeConfigBuilder {
    private String name;
    private String jdbcUrl;
    private String user;
    private String password;
    private List<String> peers = List.of();
    private int workers = 4;
    private Mode mode = Mode.GARGAMEL;
    private Isolation isolation = Isolation.PSI;
    private String rules;
    private RulesCheck rulesCheck = RulesCheck.REJECT;
    private int incrementProbe = NodeConfig.DEFAULT_INCREMENT_PROBE;
    private GroupSettings control;
    private GroupSettings writeSets;
    private ClusterSecuritySettings clusterSecurity;
    private List<String> replicas;
    private String dataDir;
    private boolean logFsync = true;
    private int appliers = ApplySettings.DEFAULT.appliers();
    private int applyGroup = ApplySettings.DEFAULT.applyGroup();
    private boolean adhocReads = AdhocSettings.DEFAULT.enabled();
    private int adhocStatementTimeoutSeconds = AdhocSettings.DEFAULT.statementTimeoutSeconds();
    private int adhocMaxRows = AdhocSettings.DEFAULT.maxRows();
    private long adhocMaxCharacters = AdhocSettings.DEFAULT.maxCharacters();
    private String site = SiteSettings.NONE.name();
    private Map<String, String> siteOfReplicas = SiteSettings.NONE.siteOfReplicas();
    private Map<String, Integer> siteDelayMillis = SiteSettings.NONE.delayMillis();
    private boolean siteLog = SiteSettings.NONE.logPerSite();
    private RoleLogins roles = RoleLogins.NONE;
    private String statsFile;

    NodeConfigBuilder() {}

    NodeConfigBuilder(NodeConfig config) {
        name = config.name();
        jdbcUrl = config.database().jdbcUrl();
        user = config.database().user();
        password = config.database().password();
        peers = config.database().peers();
        workers = config.workers();
        mode = config.mode();
        isolation = config.isolation();
        rules = config.rules();
        rulesCheck = config.rulesCheck();
        incrementProbe = config.incrementProbe();
        control = config.control();
        writeSets = config.writeSets();
        clusterSecurity = config.clusterSecurity();
        replicas = config.log().replicas();
        dataDir = config.log().dataDir();
        logFsync = config.log().fsync();
        appliers = config.apply().appliers();
        applyGroup = config.apply().applyGroup();
        adhocReads = config.adhoc().enabled();
        adhocStatementTimeoutSeconds = config.adhoc().statementTimeoutSeconds();
        adhocMaxRows = config.adhoc().maxRows();
        adhocMaxCharacters = config.adhoc().maxCharacters();
        site = config.site().name();
        siteOfReplicas = config.site().siteOfReplicas();
        siteDelayMillis = config.site().delayMillis();
        siteLog = config.site().logPerSite();
        roles = config.roles();
        statsFile = config.statsFile();
    }

    /** Key {@code name}: unique and stable; the scheduler addresses workers as (name, index). */
    public NodeConfigBuilder name(String value) {
        name = value;
        return this;
    }

    /** Key {@code jdbcUrl}: this node's PostgreSQL. */
    public NodeConfigBuilder jdbcUrl(String url) {
        jdbcUrl = url;
        return this;
    }

    /** Keys {@code user} and {@code password} (null: in the URL, or none). */
    public NodeConfigBuilder login(String userName, String userPassword) {
        user = userName;
        password = userPassword;
        return this;
    }

    /** Key {@code peers}: the databases this replica is rebuilt from when it must be (docs/node.md, Rebuild). */
    public NodeConfigBuilder peers(List<String> peerUrls) {
        peers = List.copyOf(peerUrls);
        return this;
    }

    /** Key {@code workers}: connections running chains. */
    public NodeConfigBuilder workers(int count) {
        workers = count;
        return this;
    }

    public NodeConfigBuilder mode(Mode value) {
        mode = value;
        return this;
    }

    public NodeConfigBuilder isolation(Isolation value) {
        isolation = value;
        return this;
    }

    /** Key {@code rules}: the classifier rules file. */
    public NodeConfigBuilder rules(String rulesFile) {
        rules = rulesFile;
        return this;
    }

    /** Key {@code rulesCheck}: what a write outside the call's rule does. */
    public NodeConfigBuilder rulesCheck(RulesCheck check) {
        rulesCheck = check;
        return this;
    }

    /** Key {@code incrementProbe}: probe the first {@code calls} calls of each procedure declaring increments. */
    public NodeConfigBuilder incrementProbe(int calls) {
        incrementProbe = calls;
        return this;
    }

    /** Key {@code control}: the control group shared with the scheduler. */
    public NodeConfigBuilder control(GroupSettings group) {
        control = group;
        return this;
    }

    /** Key {@code writeSets}: the write-set log's group. */
    public NodeConfigBuilder writeSets(GroupSettings group) {
        writeSets = group;
        return this;
    }

    /** Key {@code clusterSecurity}: the groups' shared secret (null: the groups are open). */
    public NodeConfigBuilder clusterSecurity(ClusterSecuritySettings settings) {
        clusterSecurity = settings;
        return this;
    }

    /** Key {@code replicas}: every node's name, the same list at every node. */
    public NodeConfigBuilder replicas(List<String> names) {
        replicas = names;
        return this;
    }

    /** Keys {@code dataDir} (null: the write-set log in memory) and {@code logFsync}. */
    public NodeConfigBuilder dataDir(String directory, boolean fsync) {
        dataDir = directory;
        logFsync = fsync;
        return this;
    }

    /** Key {@code appliers}: connections applying write-sets in parallel (1: in log order, one by one). */
    public NodeConfigBuilder appliers(int connections) {
        appliers = connections;
        return this;
    }

    /** Key {@code applyGroup}: at most this many delivered write-sets applied in one transaction. */
    public NodeConfigBuilder applyGroup(int writeSets) {
        applyGroup = writeSets;
        return this;
    }

    /** Key {@code adhocReads}. */
    public NodeConfigBuilder adhocReads(boolean enabled) {
        adhocReads = enabled;
        return this;
    }

    /** Key {@code adhocStatementTimeoutSeconds}. */
    public NodeConfigBuilder adhocStatementTimeoutSeconds(int seconds) {
        adhocStatementTimeoutSeconds = seconds;
        return this;
    }

    /** Key {@code adhocMaxRows}. */
    public NodeConfigBuilder adhocMaxRows(int rows) {
        adhocMaxRows = rows;
        return this;
    }

    /** Key {@code adhocMaxCharacters}. */
    public NodeConfigBuilder adhocMaxCharacters(long characters) {
        adhocMaxCharacters = characters;
        return this;
    }

    /** Key {@code site}: the site this node serves (null: a single-site cluster; docs/multisite.md). */
    public NodeConfigBuilder site(String siteName) {
        site = siteName;
        return this;
    }

    /** Key {@code siteOfReplicas}: every replica's site. */
    public NodeConfigBuilder siteOfReplicas(Map<String, String> replicaSites) {
        siteOfReplicas = Map.copyOf(replicaSites);
        return this;
    }

    /** Key {@code siteDelayMillis}: this site's one-way delay from each other site (tests, demos on one machine). */
    public NodeConfigBuilder siteDelayMillis(Map<String, Integer> delays) {
        siteDelayMillis = Map.copyOf(delays);
        return this;
    }

    /** Key {@code writeSetLog}: {@code site} (true) or {@code cluster} (false). */
    public NodeConfigBuilder siteLog(boolean perSite) {
        siteLog = perSite;
        return this;
    }

    /** Keys {@code roles} and {@code allowPrivilegedRoles}. */
    public NodeConfigBuilder roles(RoleLogins logins) {
        roles = logins;
        return this;
    }

    /** Key {@code statsFile}: counters and timings written when the node stops (null: none). */
    public NodeConfigBuilder statsFile(String file) {
        statsFile = file;
        return this;
    }

    public NodeConfig build() {
        return new NodeConfig(
                name,
                rules,
                mode,
                isolation,
                workers,
                rulesCheck,
                incrementProbe,
                new DatabaseSettings(jdbcUrl, user, password, peers),
                control,
                writeSets,
                clusterSecurity,
                new LogSettings(replicas, dataDir, logFsync),
                new ApplySettings(appliers, applyGroup),
                new AdhocSettings(adhocReads, adhocStatementTimeoutSeconds, adhocMaxRows, adhocMaxCharacters),
                new SiteSettings(site, siteOfReplicas, siteDelayMillis, siteLog),
                roles,
                statsFile);
    }
}
