package org.gargamel.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one parser of modes and isolations (command line and configuration files alike): the configuration names, any
 * case, a round trip through {@code configName()}, and errors that name the value, the choices and, from YAML, the key.
 */
@Tag("unit")
class ModeAndIsolationTest {
    /** A configuration holding the two types, read by the same mapper as the scheduler's and nodes' configs. */
    record Settings(Mode mode, Isolation isolation) {}

    @Test
    void modesParseByTheirConfigurationNamesInAnyCase() {
        assertEquals(Mode.GARGAMEL, Mode.parse("gargamel"));
        assertEquals(Mode.ROUND_ROBIN, Mode.parse("round-robin"));
        assertEquals(Mode.CENTRALIZED, Mode.parse("Centralized"));
        assertEquals(Mode.ROUND_ROBIN, Mode.parse(" ROUND-ROBIN "));
        for (Mode mode : Mode.values()) {
            assertEquals(mode, Mode.parse(mode.configName()), "round trip of " + mode.name());
            assertEquals(mode.configName(), mode.toString(), "printed as written in a config");
        }
        assertEquals("gargamel, round-robin or centralized", Mode.choices());
    }

    @Test
    void anUnknownModeIsNamedWithTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Mode.parse("round_robin"));
        assertEquals("unknown mode 'round_robin' (expected gargamel, round-robin or centralized)", e.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> Mode.parse(null));
        assertTrue(missing.getMessage().contains("'null'"), missing.getMessage());
    }

    @Test
    void isolationsParseByTheirConfigurationNamesInAnyCase() {
        assertEquals(Isolation.PSI, Isolation.parse("psi"));
        assertEquals(Isolation.SI, Isolation.parse("SI"));
        assertEquals(Isolation.PSI, Isolation.parse(" Psi "));
        for (Isolation isolation : Isolation.values()) {
            assertEquals(isolation, Isolation.parse(isolation.configName()), "round trip of " + isolation.name());
            assertEquals(isolation.configName(), isolation.toString());
        }
    }

    @Test
    void anUnknownIsolationIsNamedWithTheChoices() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Isolation.parse("serializable"));
        assertEquals("unknown isolation 'serializable' (expected psi or si)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Isolation.parse(""));
    }

    @Test
    void yamlReadsAndWritesThemByTheirConfigurationNames(@TempDir Path directory) {
        Settings read = ConfigFiles.parse("mode: Round-Robin\nisolation: si\n", "cluster.yaml", Settings.class);
        assertEquals(new Settings(Mode.ROUND_ROBIN, Isolation.SI), read);
        Path file = directory.resolve("written.yaml");
        ConfigFiles.write(file, new Settings(Mode.CENTRALIZED, Isolation.PSI));
        String text = assertDoesNotFail(file);
        assertTrue(text.contains("mode: \"centralized\"") || text.contains("mode: centralized"), text);
        assertTrue(text.contains("isolation: \"psi\"") || text.contains("isolation: psi"), text);
        assertEquals(new Settings(Mode.CENTRALIZED, Isolation.PSI), ConfigFiles.read(file, Settings.class));
    }

    @Test
    void yamlErrorsNameTheFileTheKeyAndTheValue() {
        ConfigException mode = assertThrows(
                ConfigException.class,
                () -> ConfigFiles.parse("isolation: psi\nmode: roundrobin\n", "cluster.yaml", Settings.class));
        assertTrue(mode.getMessage().startsWith("cluster.yaml: line 2: key 'mode': "), mode.getMessage());
        assertTrue(
                mode.getMessage().contains("unknown mode 'roundrobin' (expected gargamel, round-robin or centralized)"),
                mode.getMessage());
        ConfigException isolation = assertThrows(
                ConfigException.class,
                () -> ConfigFiles.parse("mode: gargamel\nisolation: rc\n", "cluster.yaml", Settings.class));
        assertTrue(
                isolation.getMessage().startsWith("cluster.yaml: line 2: key 'isolation': "), isolation.getMessage());
        assertTrue(
                isolation.getMessage().contains("unknown isolation 'rc' (expected psi or si)"), isolation.getMessage());
        assertInstanceOf(IllegalArgumentException.class, rootCause(isolation));
    }

    private static String assertDoesNotFail(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            throw new AssertionError("cannot read back " + file, e);
        }
    }

    private static Throwable rootCause(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
