package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gargamel apply-lag} from the all-in-one jar: C5's workload on two embedded replicas whose nodes apply with
 * three connections each. Every acknowledged event and hit must be on both replicas once, the replicas identical,
 * the lag sampled every second and charted, and some write-sets really applied beside others.
 */
@Tag("e2e")
class ApplyLagIT {

    @Test
    void parallelApplyKeepsEveryAcknowledgedInsertAndHitOnEveryReplica(
            @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory) throws Exception {
        Path out = directory.resolve("result");
        GargamelProcess run = GargamelProcess.start(
                directory,
                "apply-lag",
                "--replicas",
                "2",
                "--appliers",
                "3",
                "--terminals",
                "12",
                "--duration",
                "12s",
                "--seed",
                "5",
                "--out",
                out.toString());
        int exit = run.waitFor(4, TimeUnit.MINUTES);
        String output = run.output();
        assertEquals(0, exit, output);

        JsonNode result = new ObjectMapper().readTree(out.resolve("lag.json").toFile());
        assertTrue(result.get("passed").asBoolean(), output);
        assertEquals(3, result.get("appliers").asInt());
        long events = result.get("committedEvents").asLong();
        assertTrue(events > 100, "too few events committed: " + output);
        assertTrue(result.get("committedHits").asLong() > 0, output);
        for (JsonNode replica : result.get("replicaContents")) {
            assertEquals(events, replica.get("events").asLong(), replica.toString());
            assertEquals(events, replica.get("distinctEvents").asLong(), replica.toString());
            assertEquals(
                    result.get("committedHits").asLong(), replica.get("hits").asLong(), replica.toString());
        }
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);
        assertTrue(result.get("samples").size() >= 10, "a sample a second: " + result.get("samples"));
        assertTrue(Files.readString(out.resolve("lag.svg")).startsWith("<svg"), "the chart is written");

        long besideAnother = 0;
        for (JsonNode node :
                new ObjectMapper().readTree(out.resolve("nodes.json").toFile())) {
            besideAnother += node.path("appliedBesideAnother").asLong();
        }
        assertTrue(besideAnother > 0, "no write-set was applied beside another: " + output);
    }
}
