package org.gargamel.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gargamel.common.config.ConfigException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The front end's YAML configuration: what docs/frontend.md shows parses; every bad key is an error naming it. */
@Tag("unit")
class FrontendConfigTest {
    private static final String GOOD = """
            listen: 127.0.0.1:5433
            control: {bind: 127.0.0.1:7900, initialHosts: [127.0.0.1:7800]}
            rules: shop-rules.yaml
            """;

    @TempDir
    Path directory;

    @BeforeEach
    void rulesBesideTheConfiguration() throws Exception {
        Files.writeString(
                directory.resolve("shop-rules.yaml"), ShopCluster.resource("shop-rules.yaml"), StandardCharsets.UTF_8);
    }

    private FrontendConfig read(String yaml) throws Exception {
        Path file = directory.resolve("frontend.yaml");
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return FrontendConfig.read(file);
    }

    private String error(String yaml) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(yaml));
        assertTrue(e.getMessage().contains("frontend.yaml"), "names the file: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void aConfigurationWithUsersParsesAndKeepsNoPasswordInItsText() throws Exception {
        FrontendConfig config = read(GOOD + "users: [{name: app, password: hunter2}]\nmaxConnections: 5\n");
        assertEquals(5433, config.listenAddress().getPort());
        assertEquals(FrontendConfig.Authentication.SCRAM_SHA_256, config.authentication());
        assertEquals(directory.resolve("shop-rules.yaml").toString(), config.rules(), "read beside the file");
        assertFalse(config.toString().contains("hunter2"), config.toString());
        assertEquals(
                FrontendConfig.Authentication.TRUST,
                read(GOOD + "authentication: trust\n").authentication());
    }

    @Test
    void everyBadKeyIsNamed() {
        assertTrue(error(GOOD).contains("key 'users' needs at least one user"));
        assertTrue(error(GOOD + "users: [{name: a}]\n").contains("needs exactly one of 'password' and 'verifier'"));
        assertTrue(error(GOOD + "users: [{name: a, verifier: md5xyz}]\n").contains("not a SCRAM-SHA-256 verifier"));
        assertTrue(error(GOOD + "authentication: md5\n").contains("not an authentication method"));
        assertTrue(error(GOOD + "authentication: trust\nport: 5\n").contains("unknown key 'port'"));
        assertTrue(error(GOOD.replace("127.0.0.1:5433", "nowhere")).contains("key 'listen'"));
        assertTrue(error(GOOD.replace("shop-rules.yaml", "none.yaml") + "authentication: trust\n")
                .contains("none.yaml"));
        assertTrue(
                error(GOOD + "authentication: trust\ncatalog: postgres://x\n").contains("key 'catalog'"));
        assertTrue(error(GOOD + "authentication: trust\nmaxConnections: 0\n").contains("key 'maxConnections'"));
    }

    @Test
    void tlsAndClusterSecurityKeysAreCheckedAndReadBesideTheFile() throws Exception {
        String trusting = GOOD + "authentication: trust\n";
        assertTrue(error(trusting + "requireTls: true\n").contains("key 'requireTls: true' needs key 'tls'"));
        assertTrue(error(trusting + "tls: {certificate: server.crt}\n").contains("'certificate' and 'privateKey'"));
        assertTrue(error(trusting + "tls: {certificate: none.crt, privateKey: none.key}\n")
                .contains("key 'tls.certificate': no file " + directory.resolve("none.crt")));
        Files.writeString(directory.resolve("bad.crt"), "not a certificate");
        Files.writeString(directory.resolve("bad.key"), "not a key");
        assertTrue(error(trusting + "tls: {certificate: bad.crt, privateKey: bad.key}\n")
                .contains("PEM"));
        assertTrue(error(trusting + "clusterSecurity: {secretFile: none.secret}\n")
                .contains("key 'clusterSecurity.secretFile': cannot read " + directory.resolve("none.secret")));

        String secret = "a-secret-of-the-cluster-0123456789";
        Files.writeString(directory.resolve("cluster.secret"), secret);
        FrontendConfig config = read(trusting + "clusterSecurity: {secretFile: cluster.secret}\n");
        assertEquals(
                directory.resolve("cluster.secret").toString(),
                config.clusterSecurity().secretFile());
        assertTrue(config.controlGroup().security() != null, "the control group is secured");
        assertFalse(config.toString().contains(secret), config.toString());
        assertFalse(
                config.controlGroup().toString().contains(secret),
                config.controlGroup().toString());
    }
}
