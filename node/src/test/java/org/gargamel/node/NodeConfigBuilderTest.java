package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.node.access.RoleLogins;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder's defaults are the configuration file's: a key left out of the file and a setter not called agree. */
@Tag("unit")
class NodeConfigBuilderTest {
    @TempDir
    Path directory;

    private static String rules() throws Exception {
        return Path.of(NodeConfigBuilderTest.class
                        .getResource("bank-rules.yaml")
                        .toURI())
                .toString();
    }

    private static NodeConfigBuilder required(String rules) {
        return NodeConfig.builder()
                .name("node-1")
                .jdbcUrl("jdbc:postgresql://127.0.0.1:5432/tpcc")
                .rules(rules)
                .control(GroupSettings.inMemory())
                .writeSets(GroupSettings.inMemory())
                .replicas(List.of("node-1", "node-2", "node-3"));
    }

    @Test
    void aBuilderWithOnlyTheRequiredSettingsEqualsAFileWithOnlyTheRequiredKeys() throws Exception {
        String rules = rules();
        Path file = directory.resolve("node.yaml");
        Files.writeString(file, """
                name: node-1
                jdbcUrl: jdbc:postgresql://127.0.0.1:5432/tpcc
                control: {transport: in-memory}
                writeSets: {transport: in-memory}
                replicas: [node-1, node-2, node-3]
                rules: RULES
                """.replace("RULES", rules));
        assertEquals(NodeConfig.read(file), required(rules).build().validate());
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() throws Exception {
        NodeConfig config = required(rules()).build();
        assertEquals(4, config.workers());
        assertEquals(Mode.GARGAMEL, config.mode());
        assertEquals(Isolation.PSI, config.isolation());
        assertEquals(RulesCheck.REJECT, config.rulesCheck());
        assertEquals(10, config.incrementProbe());
        assertEquals(
                new DatabaseSettings("jdbc:postgresql://127.0.0.1:5432/tpcc", null, null, List.of()),
                config.database());
        assertNull(config.clusterSecurity(), "open groups unless a secret is given");
        assertNull(config.log().dataDir(), "the write-set log in memory");
        assertTrue(config.log().fsync(), "appends forced once the log is on disk");
        assertEquals(new ApplySettings(1, 32), config.apply());
        assertEquals(new AdhocSettings(true, 30, 100_000, 16L << 20), config.adhoc());
        assertEquals(SiteSettings.NONE, config.site());
        assertNull(config.siteName());
        assertFalse(config.siteLog());
        assertEquals(RoleLogins.NONE, config.roles());
        assertNull(config.statsFile());
    }

    @Test
    void theSiteSettersFillTheSiteSection() throws Exception {
        NodeConfig config = required(rules())
                .site("eu")
                .siteOfReplicas(Map.of("node-1", "eu", "node-2", "us", "node-3", "us"))
                .siteDelayMillis(Map.of("us", 50))
                .siteLog(true)
                .build()
                .validate();
        assertEquals(
                new SiteSettings("eu", Map.of("node-1", "eu", "node-2", "us", "node-3", "us"), Map.of("us", 50), true),
                config.site());
        assertEquals(List.of("node-1"), config.raftSettings().members());
        assertEquals(List.of("node-2", "node-3"), config.replicasOf("us"));
    }
}
