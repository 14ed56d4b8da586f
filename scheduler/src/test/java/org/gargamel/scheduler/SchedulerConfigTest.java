package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler's YAML configuration: the example parses; every bad key is an error that names it. */
@Tag("unit")
class SchedulerConfigTest {
    @TempDir
    Path dir;

    /** Writes a configuration; one without a rules key gets the TPC-C rules (required, and not what is tested). */
    private Path write(String yaml) throws Exception {
        Path file = dir.resolve("scheduler.yaml");
        Files.writeString(file, yaml.contains("rules:") ? yaml : yaml + "rules: " + TpccRules.temporaryFile() + "\n");
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
        // The example names tpcc-rules.yaml beside it: a relative rules path is read from the configuration's
        // directory.
        Path example = Files.copy(Path.of("src/main/resources/scheduler-example.yaml"), dir.resolve("scheduler.yaml"));
        TpccRules.writeTo(dir);
        SchedulerConfig config = SchedulerConfig.read(example);
        assertEquals(dir.resolve(TpccRules.FILE_NAME).toString(), config.rules());
        assertEquals(Mode.GARGAMEL, config.mode());
        assertEquals(Isolation.PSI, config.isolation());
        GroupConfig group = config.control().toGroupConfig("control");
        assertEquals(GroupConfig.Transport.TCP, group.transport());
        assertEquals(7800, group.bindPort());
        assertEquals(3, group.initialHosts().size());
        assertEquals(100_000, config.maxInFlight());
    }

    @Test
    void defaultsAndInMemory() throws Exception {
        SchedulerConfig config = SchedulerConfig.read(write("control:\n  transport: in-memory\n"));
        assertEquals(Mode.GARGAMEL, config.mode());
        assertEquals(Isolation.PSI, config.isolation());
        assertEquals(SchedulerConfig.DEFAULT_MAX_IN_FLIGHT, config.maxInFlight());
        assertEquals(
                GroupConfig.Transport.IN_MEMORY,
                config.control().toGroupConfig("control").transport());
        SchedulerConfig other = SchedulerConfig.read(
                write("control: {transport: in-memory}\nmode: centralized\nisolation: si\nmaxInFlight: 7\n"));
        assertEquals(Mode.CENTRALIZED, other.mode());
        assertEquals(Isolation.SI, other.isolation());
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
        assertTrue(error("control: {transport: in-memory}\nrules: /no/such/rules.yaml\n")
                .contains("key 'rules'"));
        Path noRules = dir.resolve("no-rules.yaml");
        Files.writeString(noRules, "control: {transport: in-memory}\n");
        assertTrue(assertThrows(ConfigException.class, () -> SchedulerConfig.read(noRules))
                .getMessage()
                .contains("key 'rules' is required"));
        assertTrue(error("control: {transport: udp}\n").contains("key 'control.transport'"));
        assertTrue(error("control: {initialHosts: ['127.0.0.1:7800']}\n").contains("key 'control.bind'"));
        assertTrue(error("control: {bind: '127.0.0.1:7800'}\n").contains("key 'control.initialHosts'"));
        assertTrue(error("control: {bind: '127.0.0.1:7800', initialHosts: ['127.0.0.1']}\n")
                .contains("key 'control.initialHosts'"));
        assertTrue(error("control: {bind: 'localhost', initialHosts: ['127.0.0.1:7800']}\n")
                .contains("key 'control.bind'"));
    }

    @Test
    void contradictionsAreErrorsNamingTheKey() throws Exception {
        assertTrue(error("control: {transport: in-memory, bind: '127.0.0.1:7800'}\n")
                .contains("key 'control.bind' contradicts"));
        assertTrue(error("control: {transport: in-memory, initialHosts: ['127.0.0.1:7800']}\n")
                .contains("key 'control.initialHosts' contradicts"));
    }

    @Test
    void aSiteSectionMakesASiteSchedulerAndEveryBadKeyInItIsNamed() throws Exception {
        String control = "control: {transport: in-memory}\n";
        SchedulerConfig config = SchedulerConfig.read(write(control + "site:\n  name: eu\n  sites: [eu, us, ap]\n"
                + "  schedule: {transport: in-memory}\n  delayMillis: {us: 50, ap: 100}\n"));
        assertEquals("eu", config.site().name());
        assertEquals(
                org.gargamel.scheduler.sites.AgreementMode.OPTIMISTIC,
                config.site().agreement());
        assertEquals("gargamel-control-eu", config.controlCluster());
        assertEquals(
                java.time.Duration.ofMillis(100), config.site().links().delay("ap", "eu"), "ap's messages are held");
        assertEquals(java.time.Duration.ZERO, config.site().links().delay("us", "ap"), "not a link of this site's");
        assertEquals(3, config.site().raft().members().size());
        assertEquals(null, config.site().raft().logDirectory(), "in memory unless a directory is named");
        assertEquals("gargamel-control", SchedulerConfig.read(write(control)).controlCluster());

        String site = "site:\n  name: eu\n  sites: [eu, us]\n  schedule: {transport: in-memory}\n";
        assertEquals(
                org.gargamel.scheduler.sites.AgreementMode.PESSIMISTIC,
                SchedulerConfig.read(write(control + site + "  agreement: pessimistic\n"))
                        .site()
                        .agreement());
        assertTrue(error(control + site + "  agreement: eventually\n").contains("key 'site.agreement'"));
        SchedulerConfig owned =
                SchedulerConfig.read(write(control + site + "  agreement: owned\n  owners: {eu: [1, 3], us: [2]}\n"));
        org.gargamel.scheduler.sites.OwnedAgreement.Ownership ownership =
                owned.site().ownership();
        assertEquals(java.util.Set.of("eu"), ownership.ownersOf(key(3)), "warehouse 3 is eu's");
        assertEquals(java.util.Set.of("us"), ownership.ownersOf(key(2)));
        assertEquals(java.util.Set.of("eu", "us"), ownership.ownersOf(key(9)), "a value nobody owns: any site's");
        assertEquals(
                java.util.Set.of("eu", "us"),
                ownership.ownersOf(
                        new org.gargamel.classifier.WriteKey(1, new long[] {3}, 0, null, java.util.List.of())),
                "a wildcard: any site's");
        assertTrue(error(control + site + "  agreement: owned\n").contains("key 'site.owners' is required"));
        assertTrue(error(control + site + "  owners: {eu: [1]}\n").contains("key 'site.owners' is used only with"));
        assertTrue(error(control + site + "  agreement: owned\n  owners: {eu: [1], us: [1]}\n")
                .contains("value 1 is owned by both 'eu' and 'us'"));
        assertTrue(error(control + site + "  agreement: owned\n  owners: {ap: [1]}\n")
                .contains("key 'site.owners': 'ap' is not a site"));
        assertTrue(error(control + site + "  agreement: owned\n  owners: {eu: one}\n")
                .contains("site.owners"));
        assertTrue(error(control + site + "  delayMillis: {ap: 5}\n").contains("key 'site.delayMillis'"));
        assertTrue(error(control + site + "  delayMillis: {us: -5}\n").contains("key 'site.delayMillis.us'"));
        assertTrue(error(control + site + "  colour: blue\n").contains("unknown key 'site.colour'"));
        assertTrue(error(control + site + "  logDir: ''\n").contains("key 'site.logDir'"));
        SchedulerConfig onDisk =
                SchedulerConfig.read(write(control + site + "  logDir: /var/lib/eu-schedule\n  logFsync: false\n"));
        assertEquals(
                java.nio.file.Path.of("/var/lib/eu-schedule"),
                onDisk.site().raft().logDirectory());
        assertTrue(!onDisk.site().raft().fsync());
        assertTrue(error(control + "site: {name: eu, sites: [us, ap], schedule: {transport: in-memory}}\n")
                .contains("does not name this site"));
        assertTrue(error(control + "site: {name: eu, sites: [eu], schedule: {transport: in-memory}}\n")
                .contains("key 'site.sites'"));
        assertTrue(error(control + "site: {name: eu, sites: [eu, eu], schedule: {transport: in-memory}}\n")
                .contains("names a site twice"));
        assertTrue(error(control + "site: {sites: [eu, us], schedule: {transport: in-memory}}\n")
                .contains("key 'site.name' is required"));
        assertTrue(error(control + "site: {name: eu, sites: [eu, us]}\n").contains("key 'site.schedule' is required"));
        assertTrue(
                error(control + site + "isolation: si\n").contains("key 'site' needs mode gargamel and isolation psi"));
        assertTrue(error(control + "site: {name: eu, sites: [eu, us], schedule: {bind: '127.0.0.1:7900', "
                        + "initialHosts: ['127.0.0.1:7900']}}\n")
                .contains("'site.schedule.transport' contradict"));
    }

    private static org.gargamel.classifier.WriteKey key(long warehouse) {
        return new org.gargamel.classifier.WriteKey(
                1, new long[] {warehouse, 7}, 2, null, java.util.List.of(warehouse, 7L));
    }

    @Test
    void badRulesFileIsNamedWithItsError() throws Exception {
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, "procedures:\n  broken: [\n");
        String message = error("control: {transport: in-memory}\nrules: " + rules + "\n");
        assertTrue(message.contains("key 'rules'"), message);
    }
}
