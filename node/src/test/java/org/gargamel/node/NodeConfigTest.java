package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's configuration file is read strictly: every error names the key. */
@Tag("unit")
class NodeConfigTest {
    private static final String GOOD = """
            name: node-1
            jdbcUrl: jdbc:postgresql://127.0.0.1:5432/tpcc
            workers: 3
            mode: round-robin
            isolation: si
            control: {bind: 127.0.0.1:7810, initialHosts: [127.0.0.1:7800, 127.0.0.1:7810]}
            writeSets: {bind: 127.0.0.1:7811, initialHosts: [127.0.0.1:7811]}
            replicas: [node-1, node-2, node-3]
            rules: RULES
            """;

    @TempDir
    Path directory;

    private String good;

    @BeforeEach
    void writeRules() throws Exception {
        Path rules = Path.of(NodeConfigTest.class.getResource("bank-rules.yaml").toURI());
        good = GOOD.replace("RULES", rules.toString());
    }

    private NodeConfig read(String text) throws Exception {
        Path file = directory.resolve("node.yaml");
        Files.writeString(file, text);
        return NodeConfig.read(file);
    }

    private String error(String text) {
        return assertThrows(ConfigException.class, () -> read(text)).getMessage();
    }

    /** Each builder setter changes what it names and keeps every other setting (all set to something not the default). */
    @Test
    void everyBuilderSetterChangesOnlyWhatItNames() throws Exception {
        Files.writeString(directory.resolve("cluster.secret"), "a secret of the cluster, long enough\n");
        NodeConfig config = read(good + """
                dataDir: /var/lib/gargamel/node-1
                logFsync: false
                statsFile: stats.json
                user: gargamel
                password: secret
                peers: [jdbc:postgresql://127.0.0.1:5432/peer]
                rulesCheck: warn
                adhocReads: false
                adhocStatementTimeoutSeconds: 7
                clusterSecurity: {secretFile: cluster.secret}
                """);
        NodeConfig changed = config.toBuilder()
                .dataDir("/elsewhere", true)
                .peers(List.of())
                .rulesCheck(RulesCheck.OFF)
                .adhocReads(true)
                .adhocStatementTimeoutSeconds(30)
                .clusterSecurity(null)
                .rules("other-rules.yaml")
                .appliers(4)
                .applyGroup(8)
                .build();
        assertEquals("/elsewhere", changed.log().dataDir());
        assertTrue(changed.log().fsync());
        assertEquals(List.of(), changed.database().peers());
        assertEquals(RulesCheck.OFF, changed.rulesCheck());
        assertTrue(changed.adhoc().enabled());
        assertEquals(30, changed.adhoc().statementTimeoutSeconds());
        assertEquals(null, changed.clusterSecurity());
        assertEquals("other-rules.yaml", changed.rules());
        assertEquals(4, changed.apply().appliers());
        assertEquals(8, changed.apply().applyGroup());
        NodeConfig back = changed.toBuilder()
                .dataDir(config.log().dataDir(), config.log().fsync())
                .peers(config.database().peers())
                .rulesCheck(config.rulesCheck())
                .adhocReads(config.adhoc().enabled())
                .adhocStatementTimeoutSeconds(config.adhoc().statementTimeoutSeconds())
                .clusterSecurity(config.clusterSecurity())
                .rules(config.rules())
                .appliers(config.apply().appliers())
                .applyGroup(config.apply().applyGroup())
                .build();
        assertEquals(config, back, "changed back, nothing else differs");
        assertEquals(config, config.toBuilder().build(), "a builder from a configuration builds it again");
    }

    @Test
    void goodFileWithDefaults() throws Exception {
        NodeConfig config = read(good);
        assertEquals(3, config.workers());
        assertEquals(Mode.ROUND_ROBIN, config.mode());
        assertEquals(Isolation.SI, config.isolation());
        assertTrue(config.si());
        NodeConfig defaults = read(good.replace("workers: 3\n", "")
                .replace("mode: round-robin\n", "")
                .replace("isolation: si\n", ""));
        assertEquals(4, defaults.workers());
        assertEquals(List.of("node-1", "node-2", "node-3"), config.log().replicas());
        assertEquals(null, config.log().dataDir(), "the write-set log in memory unless a directory is given");
        assertTrue(config.log().fsync(), "appends reach the disk unless told otherwise");
        assertEquals(2, config.raftSettings().majority());
        NodeConfig stored = read(good + "dataDir: /var/lib/gargamel/node-1\nlogFsync: false\n");
        assertEquals(
                java.nio.file.Path.of("/var/lib/gargamel/node-1/log"),
                stored.raftSettings().logDirectory());
        assertTrue(!stored.raftSettings().fsync());
        assertEquals(Mode.GARGAMEL, defaults.mode());
        assertEquals(Isolation.PSI, defaults.isolation());
        assertTrue(!defaults.si());
        assertEquals(RulesCheck.REJECT, defaults.rulesCheck(), "writes outside the rules are rejected by default");
        assertTrue(defaults.checksRules());
        assertTrue(!config.checksRules(), "round-robin does not check: the rules do not drive its scheduling");
        NodeConfig warn = read(good.replace("mode: round-robin\n", "") + "rulesCheck: warn\n");
        assertEquals(RulesCheck.WARN, warn.rulesCheck());
        assertTrue(warn.checksRules());
        assertTrue(!read(good.replace("mode: round-robin\n", "") + "rulesCheck: off\n")
                .checksRules());
    }

    @Test
    void aBadRulesCheckNamesTheKeyAndTheChoices() {
        String message = error(good + "rulesCheck: fence\n");
        assertTrue(message.contains("key 'rulesCheck'"), message);
        assertTrue(message.contains("'fence'") && message.contains("warn, reject or off"), message);
        assertTrue(message.contains("line"), message);
    }

    @Test
    void adHocReadsAreOnByDefaultWithATimeoutAndCanBeTurnedOff() throws Exception {
        NodeConfig defaults = read(good);
        assertTrue(defaults.adhoc().enabled());
        assertEquals(NodeConfig.DEFAULT_ADHOC_TIMEOUT_SECONDS, defaults.adhoc().statementTimeoutSeconds());
        NodeConfig off = read(good + "adhocReads: false\nadhocStatementTimeoutSeconds: 5\n");
        assertTrue(!off.adhoc().enabled());
        assertEquals(5, off.adhoc().statementTimeoutSeconds());
        String message = error(good + "adhocStatementTimeoutSeconds: 0\n");
        assertTrue(message.contains("key 'adhocStatementTimeoutSeconds'"), message);
        assertTrue(error(good + "adhocReads: maybe\n").contains("adhocReads"));
    }

    @Test
    void appliersDefaultToOneAndAreBounded() throws Exception {
        assertEquals(NodeConfig.DEFAULT_APPLIERS, read(good).apply().appliers());
        assertEquals(1, NodeConfig.DEFAULT_APPLIERS);
        NodeConfig four = read(good.replace("mode: round-robin\n", "") + "appliers: 4\n");
        assertEquals(4, four.apply().appliers());
        assertTrue(four.appliesInParallel());
        assertTrue(
                !read(good + "appliers: 4\n").appliesInParallel(),
                "round-robin certifies write-sets one by one: never in parallel");
        String message = error(good + "appliers: 0\n");
        assertTrue(message.contains("key 'appliers' must be between 1 and 64, got 0"), message);
        assertTrue(error(good + "appliers: 65\n").contains("key 'appliers'"));
    }

    @Test
    void applyGroupDefaultsTo32AndIsBounded() throws Exception {
        assertEquals(32, read(good).apply().applyGroup());
        assertEquals(1, read(good + "applyGroup: 1\n").apply().applyGroup());
        String message = error(good + "applyGroup: 0\n");
        assertTrue(message.contains("key 'applyGroup' must be between 1 and 1000, got 0"), message);
        assertTrue(error(good + "applyGroup: 1001\n").contains("key 'applyGroup'"));
    }

    @Test
    void aSiteGivesTheNodeItsSitesControlGroupAndNeedsGargamelWithPsi() throws Exception {
        String gargamel = good.replace("mode: round-robin\n", "").replace("isolation: si\n", "isolation: psi\n");
        assertEquals("gargamel-control", read(gargamel).controlCluster());
        NodeConfig eu = read(gargamel + "site: eu\n");
        assertEquals("eu", eu.siteName());
        assertEquals("gargamel-control-eu", eu.controlCluster());
        assertEquals("us", eu.toBuilder().site("us").build().siteName());
        String message = error(good + "site: eu\n");
        assertTrue(message.contains("key 'site' needs mode gargamel and isolation psi"), message);
        assertTrue(error(gargamel + "site: 'e u'\n").contains("key 'site' must be 1 to 32 letters"));

        String delayed = gargamel + "site: eu\nsiteOfReplicas: {node-1: eu, node-2: us, node-3: us}\n";
        NodeConfig links = read(delayed + "siteDelayMillis: {us: 50}\n");
        assertEquals(java.time.Duration.ofMillis(50), links.writeSetLinks().delay("us", "eu"));
        assertEquals(java.time.Duration.ZERO, links.writeSetLinks().delay("us", "us"), "within a site: none");
        assertTrue(eu.writeSetLinks().isEmpty(), "no delay unless configured");
        assertTrue(error(delayed + "siteDelayMillis: {ap: 50}\n").contains("key 'siteDelayMillis': 'ap'"));
        assertTrue(error(delayed + "siteDelayMillis: {us: -1}\n").contains("key 'siteDelayMillis.us'"));
        assertTrue(error(gargamel + "site: eu\nsiteOfReplicas: {node-1: eu}\n").contains("every replica"));
        assertTrue(error(gargamel + "site: eu\nsiteOfReplicas: {node-1: us, node-2: us, node-3: eu}\n")
                .contains("puts this node in site us"));
        assertTrue(error(gargamel + "siteDelayMillis: {us: 5}\n").contains("are for a node with key 'site'"));
    }

    /** A write-set log per site: the site's replicas are its members, the others' logs are followed as a learner. */
    @Test
    void aWriteSetLogPerSiteIsOfTheSitesReplicas() throws Exception {
        String gargamel = good.replace("mode: round-robin\n", "").replace("isolation: si\n", "isolation: psi\n");
        String sited = gargamel + "site: eu\nsiteOfReplicas: {node-1: eu, node-2: us, node-3: us}\n";
        NodeConfig one = read(sited);
        assertEquals(false, one.siteLog(), "one log for all replicas unless asked");
        assertEquals("gargamel-writesets", one.writeSetCluster());
        assertEquals(List.of("node-1", "node-2", "node-3"), one.raftSettings().members());
        NodeConfig perSite = read(sited + "writeSetLog: site\n");
        assertEquals("gargamel-writesets-eu", perSite.writeSetCluster());
        assertEquals(List.of("node-1"), perSite.raftSettings().members());
        assertEquals(java.util.Set.of("us"), perSite.otherSites());
        org.gargamel.common.group.RaftSettings learner = perSite.learnerSettings("us");
        assertEquals(List.of("node-2", "node-3"), learner.members());
        assertTrue(learner.joining(), "a learner: it neither votes nor counts towards us's majority");
        assertEquals(null, learner.logDirectory(), "in memory when the node's own log is");
        assertEquals(
                java.nio.file.Path.of("/data/n1/log-us"),
                perSite.toBuilder()
                        .dataDir("/data/n1", true)
                        .build()
                        .learnerSettings("us")
                        .logDirectory(),
                "beside the node's own log on disk");
        assertFalse(
                perSite.toBuilder()
                        .dataDir("/data/n1", true)
                        .build()
                        .learnerSettings("us")
                        .fsync(),
                "not forced");
        assertEquals("gargamel-writesets-us", SiteSettings.writeSetCluster("us"));
        assertTrue(read(sited + "writeSetLog: cluster\n").writeSetCluster().equals("gargamel-writesets"));
        assertTrue(error(sited + "writeSetLog: region\n").contains("key 'writeSetLog' must be cluster or site"));
        assertTrue(error(gargamel + "site: eu\nwriteSetLog: site\n")
                .contains("key 'writeSetLog: site' needs keys 'site' and 'siteOfReplicas'"));
    }

    @Test
    void unknownKeyIsNamed() {
        String message = error(good + "wrokers: 3\n");
        assertTrue(message.contains("unknown key 'wrokers'"), message);
        assertTrue(message.contains("line"), message);
    }

    @Test
    void badValuesAreNamed() {
        assertTrue(error(good.replace("mode: round-robin", "mode: fast")).contains("key 'mode'"));
        assertTrue(error(good.replace("isolation: si", "isolation: ser")).contains("key 'isolation'"));
        assertTrue(error(good.replace("workers: 3", "workers: 0")).contains("key 'workers'"));
        assertTrue(error(good.replace("workers: 3", "workers: many")).contains("workers"));
        assertTrue(error(good.replace("name: node-1", "name: scheduler")).contains("key 'name'"));
        assertTrue(error(good.replace("jdbcUrl: jdbc:postgresql://127.0.0.1:5432/tpcc\n", ""))
                .contains("key 'jdbcUrl'"));
        assertTrue(error(good.replaceAll("rules: .*", "rules: /nonexistent/rules.yaml"))
                .contains("key 'rules'"));
        assertTrue(error(good.replaceAll("rules: .*\n", "")).contains("key 'rules' is required"));
        assertTrue(error(good.replaceAll("replicas: .*\n", "")).contains("key 'replicas' is required"));
        assertTrue(error(good.replace("[node-1, node-2, node-3]", "[node-2, node-3]"))
                .contains("does not name this node"));
        assertTrue(error(good.replace("[node-1, node-2, node-3]", "[node-1, node-2, node-2]"))
                .contains("twice"));
        assertTrue(error(good + "logFsync: sometimes\n").contains("logFsync"));
    }

    @Test
    void userAndPassword() throws Exception {
        NodeConfig config = read(good + "user: gargamel\npassword: secret\n");
        assertEquals("gargamel", config.database().user());
        assertTrue(!config.toString().contains("secret"), config.toString());
        assertTrue(error(good + "password: secret\n").contains("key 'password' needs key 'user'"));
        assertTrue(error(good.replace("/tpcc", "/tpcc?user=x") + "user: gargamel\n")
                .contains("contradict"));
    }

    @Test
    void contradictionsAreNamed() {
        String samePort = error(good.replace("bind: 127.0.0.1:7811", "bind: 127.0.0.1:7810"));
        assertTrue(samePort.contains("control.bind") && samePort.contains("writeSets.bind"), samePort);
        String transports = error(good.replace(
                "control: {bind: 127.0.0.1:7810, initialHosts: [127.0.0.1:7800, 127.0.0.1:7810]}",
                "control: {transport: in-memory}"));
        assertTrue(transports.contains("transport"), transports);
        assertTrue(error(good.replace("writeSets: {bind: 127.0.0.1:7811, initialHosts: [127.0.0.1:7811]}\n", ""))
                .contains("key 'writeSets'"));
    }

    @Test
    void groupsOthersReachNeedTheClustersSecretOrOpenSaidExplicitly() throws Exception {
        String exposed = good.replace(
                "control: {bind: 127.0.0.1:7810, initialHosts: [127.0.0.1:7800, 127.0.0.1:7810]}",
                "control: {bind: 10.0.0.5:7810, initialHosts: [127.0.0.1:7800, 10.0.0.5:7810]}");
        String refused = error(exposed);
        assertTrue(
                refused.contains("key 'clusterSecurity' is required")
                        && refused.contains("key 'control.bind' is 10.0.0.5:7810"),
                refused);
        assertEquals(
                null,
                read(exposed + "clusterSecurity: {open: true}\n").controlGroup().security());
        assertTrue(error(exposed + "clusterSecurity: {open: true, secretFile: cluster.secret}\n")
                .contains("contradict"));
        read(good); // loopback only: open groups, as before
    }

    @Test
    void rolesAreValidatedAndKeptWithoutTheirPasswords() throws Exception {
        NodeConfig config = read(good + "roles: [{name: app}, {name: clerk, password: hunter2}]\n");
        assertEquals(java.util.List.of("app", "clerk"), config.roles().names());
        assertTrue(!config.toString().contains("hunter2"), config.toString());
        assertTrue(error(good + "roles: [{name: app}, {name: app}]\n").contains("listed twice"));
        assertTrue(error(good + "roles: [{name: \"" + "r".repeat(64) + "\"}]\n").contains("at most 63"));
        assertTrue(error(good + "roles: [{name: a, password: x, passwordFile: f}]\n")
                .contains("both"));
    }
}
