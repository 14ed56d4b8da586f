package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gargamel.common.config.ConfigException;
import org.gargamel.node.cli.NodeCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's configuration file is read strictly: every error names the key. */
class NodeConfigTest {
    private static final String GOOD = """
            name: node-1
            jdbcUrl: jdbc:postgresql://127.0.0.1:5432/tpcc
            workers: 3
            mode: round-robin
            isolation: si
            control: {bind: 127.0.0.1:7810, initialHosts: [127.0.0.1:7800, 127.0.0.1:7810]}
            writeSets: {bind: 127.0.0.1:7811, initialHosts: [127.0.0.1:7811]}
            """;

    @TempDir
    Path directory;

    private NodeConfig read(String text) throws Exception {
        Path file = directory.resolve("node.yaml");
        Files.writeString(file, text);
        return NodeConfig.read(file);
    }

    private String error(String text) {
        return assertThrows(ConfigException.class, () -> read(text)).getMessage();
    }

    @Test
    void goodFileWithDefaults() throws Exception {
        NodeConfig config = read(GOOD);
        assertEquals(3, config.workers());
        assertEquals(NodeConfig.Mode.ROUND_ROBIN, config.runMode());
        assertTrue(config.si());
        NodeConfig defaults = read(GOOD.replace("workers: 3\n", "").replace("mode: round-robin\n", "")
                .replace("isolation: si\n", ""));
        assertEquals(4, defaults.workers());
        assertEquals(NodeConfig.Mode.GARGAMEL, defaults.runMode());
        assertTrue(!defaults.si());
    }

    @Test
    void unknownKeyIsNamed() {
        String message = error(GOOD + "wrokers: 3\n");
        assertTrue(message.contains("unknown key 'wrokers'"), message);
        assertTrue(message.contains("line"), message);
    }

    @Test
    void badValuesAreNamed() {
        assertTrue(error(GOOD.replace("mode: round-robin", "mode: fast")).contains("key 'mode'"));
        assertTrue(error(GOOD.replace("isolation: si", "isolation: ser")).contains("key 'isolation'"));
        assertTrue(error(GOOD.replace("workers: 3", "workers: 0")).contains("key 'workers'"));
        assertTrue(error(GOOD.replace("workers: 3", "workers: many")).contains("workers"));
        assertTrue(error(GOOD.replace("name: node-1", "name: scheduler")).contains("key 'name'"));
        assertTrue(error(GOOD.replace("jdbcUrl: jdbc:postgresql://127.0.0.1:5432/tpcc\n", "")).contains("key 'jdbcUrl'"));
        assertTrue(error(GOOD + "rules: /nonexistent/rules.yaml\n").contains("key 'rules'"));
    }

    @Test
    void userAndPassword() throws Exception {
        NodeConfig config = read(GOOD + "user: gargamel\npassword: secret\n");
        assertEquals("gargamel", config.user());
        assertTrue(!config.toString().contains("secret"), config.toString());
        assertTrue(error(GOOD + "password: secret\n").contains("key 'password' needs key 'user'"));
        assertTrue(error(GOOD.replace("/tpcc", "/tpcc?user=x") + "user: gargamel\n").contains("contradict"));
    }

    @Test
    void contradictionsAreNamed() {
        String samePort = error(GOOD.replace("bind: 127.0.0.1:7811", "bind: 127.0.0.1:7810"));
        assertTrue(samePort.contains("control.bind") && samePort.contains("writeSets.bind"), samePort);
        String transports = error(GOOD.replace("control: {bind: 127.0.0.1:7810, initialHosts: [127.0.0.1:7800, 127.0.0.1:7810]}",
                "control: {transport: in-memory}"));
        assertTrue(transports.contains("transport"), transports);
        assertTrue(error(GOOD.replace("writeSets: {bind: 127.0.0.1:7811, initialHosts: [127.0.0.1:7811]}\n", ""))
                .contains("key 'writeSets'"));
    }

    @Test
    void commandLineErrors() throws Exception {
        PrintStream out = new PrintStream(new ByteArrayOutputStream());
        assertThrows(IllegalArgumentException.class, () -> NodeCommand.run(new String[0], out, out));
        assertThrows(IllegalArgumentException.class, () -> NodeCommand.run(new String[] {"--bogus"}, out, out));
        assertThrows(IllegalArgumentException.class,
                () -> NodeCommand.run(new String[] {"uninstall-capture"}, out, out));
        assertEquals(0, NodeCommand.run(new String[] {"--help"}, out, out));
        assertEquals(2, NodeCommand.run(new String[] {"--config", directory.resolve("missing.yaml").toString()}));
    }
}
