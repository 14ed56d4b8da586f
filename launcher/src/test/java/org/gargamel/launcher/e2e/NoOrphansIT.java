package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A demo stopped by Ctrl-C, and a demo that fails because a node dies, leave no process (scheduler, nodes,
 * PostgreSQL) and no temporary directory behind. The first runs the demo as a user does, unpacking the PostgreSQL
 * binaries into its temporary directory (not into the build's shared copy) and loading every replica, so that their
 * removal is checked too; the second starts its replicas as copies of the build's loaded snapshot, whose removal is
 * checked the same way.
 */
@Tag("e2e")
class NoOrphansIT {
    private static final String RUNNING = "running TPC-C through Gargamel";

    @Test
    void ctrlCStopsEverything(@TempDir Path directory) throws Exception {
        GargamelProcess demo = GargamelProcess.startAsAUser(
                directory,
                "demo",
                "--warehouses",
                "1",
                "--terminals",
                "4",
                "--duration",
                "5m",
                "--out",
                directory.resolve("result").toString());
        List<ProcessHandle> children = Orphans.watchDescendants(demo.process);
        demo.awaitOutput(RUNNING, 180);
        Orphans.awaitAtLeast(children, 4, 30); // scheduler, 3 nodes and PostgreSQL (the watcher polls)
        demo.signal("INT");
        int exit = demo.waitFor(90, TimeUnit.SECONDS);
        assertEquals(130, exit, demo.output());
        Orphans.assertAllGone(children, demo.output());
        assertEquals(List.of(), demo.leftovers(), "temporary files left behind");
    }

    @Test
    void aDemoWhoseNodeDiesFailsClearlyAndCleansUp(@TempDir Path directory) throws Exception {
        GargamelProcess demo = GargamelProcess.start(
                directory,
                "demo",
                "--warehouses",
                "1",
                "--terminals",
                "4",
                "--duration",
                "5m",
                "--out",
                directory.resolve("result").toString());
        List<ProcessHandle> children = Orphans.watchDescendants(demo.process);
        demo.awaitOutput(RUNNING, 180);
        Orphans.awaitAtLeast(children, 4, 30);
        Optional<ProcessHandle> node = demo.process
                .descendants()
                .filter(handle -> handle.info().commandLine().orElse("").contains(" node --config"))
                .findFirst();
        assertTrue(node.isPresent(), "no node process found among " + children.size() + " descendants");
        node.get().destroyForcibly();
        int exit = demo.waitFor(3, TimeUnit.MINUTES);
        String output = demo.output();
        assertNotEquals(0, exit, output);
        assertTrue(output.contains("gargamel: error:"), output);
        assertTrue(output.contains("node-"), "the error should name the node that left: " + output);
        Orphans.assertAllGone(children, output);
        assertEquals(List.of(), demo.leftovers(), "temporary files left behind");
    }
}
