package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gargamel.classifier.Isolation;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.scheduler.cli.SchedulerCommand;
import org.gargamel.scheduler.core.SchedulingMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler's YAML configuration: the example parses; every bad key is an error that names it. */
@Tag("unit")
class SchedulerConfigTest {
    @TempDir
    Path dir;

    private Path write(String yaml) throws Exception {
        Path file = dir.resolve("scheduler.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private String error(String yaml) throws Exception {
        Path file = write(yaml);
        ConfigException e = assertThrows(ConfigException.class, () -> SchedulerConfig.read(file));
        assertTrue(e.getMessage().contains(file.toString()), "names the file: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void theDocumentedExampleParses() throws Exception {
        Path example = Path.of("src/main/resources/scheduler-example.yaml");
        SchedulerConfig config = SchedulerConfig.read(example);
        assertEquals(SchedulingMode.GARGAMEL, config.schedulingMode());
        assertEquals(Isolation.PSI, config.isolationLevel());
        GroupConfig group = config.control().toGroupConfig("control");
        assertEquals(GroupConfig.Transport.TCP, group.transport());
        assertEquals(7800, group.bindPort());
        assertEquals(3, group.initialHosts().size());
        assertEquals(100_000, config.maxInFlight());
    }

    @Test
    void defaultsAndInMemory() throws Exception {
        SchedulerConfig config = SchedulerConfig.read(write("control:\n  transport: in-memory\n"));
        assertEquals(SchedulingMode.GARGAMEL, config.schedulingMode());
        assertEquals(Isolation.PSI, config.isolationLevel());
        assertEquals(SchedulerConfig.DEFAULT_MAX_IN_FLIGHT, config.maxInFlight());
        assertEquals(GroupConfig.Transport.IN_MEMORY, config.control().toGroupConfig("control").transport());
        SchedulerConfig other = SchedulerConfig.read(write(
                "control: {transport: in-memory}\nmode: centralized\nisolation: si\nmaxInFlight: 7\n"));
        assertEquals(SchedulingMode.CENTRALIZED, other.schedulingMode());
        assertEquals(Isolation.SI, other.isolationLevel());
        assertEquals(7, other.maxInFlight());
    }

    @Test
    void badKeysAreNamed() throws Exception {
        assertTrue(error("control: {transport: in-memory}\nmaxInFlihgt: 5\n").contains("unknown key 'maxInFlihgt'"));
        assertTrue(error("control: {transport: in-memory, bnd: 'x:1'}\n").contains("unknown key 'control.bnd'"));
        assertTrue(error("mode: gargamel\n").contains("key 'control' is required"));
        assertTrue(error("control: {transport: in-memory}\nmode: fastest\n").contains("key 'mode'"));
        assertTrue(error("control: {transport: in-memory}\nisolation: ser\n").contains("key 'isolation'"));
        assertTrue(error("control: {transport: in-memory}\nmaxInFlight: 0\n").contains("key 'maxInFlight'"));
        assertTrue(error("control: {transport: in-memory}\nmaxInFlight: lots\n").contains("maxInFlight"));
        assertTrue(error("control: {transport: in-memory}\nrules: /no/such/rules.yaml\n").contains("key 'rules'"));
        assertTrue(error("control: {transport: udp}\n").contains("key 'control.transport'"));
        assertTrue(error("control: {initialHosts: ['127.0.0.1:7800']}\n").contains("key 'control.bind'"));
        assertTrue(error("control: {bind: '127.0.0.1:7800'}\n").contains("key 'control.initialHosts'"));
        assertTrue(error("control: {bind: '127.0.0.1:7800', initialHosts: ['127.0.0.1']}\n")
                .contains("key 'control.initialHosts'"));
        assertTrue(error("control: {bind: 'localhost', initialHosts: ['127.0.0.1:7800']}\n").contains("key 'control.bind'"));
    }

    @Test
    void contradictionsAreErrorsNamingTheKey() throws Exception {
        assertTrue(error("control: {transport: in-memory, bind: '127.0.0.1:7800'}\n")
                .contains("key 'control.bind' contradicts"));
        assertTrue(error("control: {transport: in-memory, initialHosts: ['127.0.0.1:7800']}\n")
                .contains("key 'control.initialHosts' contradicts"));
    }

    @Test
    void badRulesFileIsNamedWithItsError() throws Exception {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, "procedures:\n  broken: [\n");
        String message = error("control: {transport: in-memory}\nrules: " + rules + "\n");
        assertTrue(message.contains("key 'rules'"), message);
    }

    @Test
    void theCommandRefusesMissingOrBadConfig() throws Exception {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> SchedulerCommand.run(new String[0]));
        assertTrue(none.getMessage().contains("--config"), none.getMessage());
        Path bad = write("control: {transport: in-memory}\nmode: nope\n");
        IllegalArgumentException invalid = assertThrows(IllegalArgumentException.class,
                () -> SchedulerCommand.run(new String[] {"--config", bad.toString()}));
        assertTrue(invalid.getMessage().contains("key 'mode'"), invalid.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SchedulerCommand.run(new String[] {"--verbose"}));
    }
}
