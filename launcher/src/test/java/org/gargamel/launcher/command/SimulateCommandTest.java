package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gargamel simulate} with the built-in calibration: simulate.json holds the three modes at each replica count
 * asked for, and the validation against the runs measured with that calibration; bad input names what is wrong and
 * writes nothing.
 */
@Tag("unit")
class SimulateCommandTest {
    @Test
    void writesEveryModeAtEveryReplicaCountAndTheValidation(@TempDir Path directory) throws Exception {
        Path out = directory.resolve("sim");
        CommandRunner result = CommandRunner.run(
                "simulate",
                "--replicas",
                "1,4",
                "--terminals-per-replica",
                "8",
                "--duration",
                "1s",
                "--out",
                out.toString());
        assertEquals(0, result.exitCode(), result.toString());
        JsonNode json = new ObjectMapper().readTree(out.resolve("simulate.json").toFile());
        Set<String> shapes = new HashSet<>();
        for (JsonNode run : json.get("runs")) {
            shapes.add(run.get("mode").asText() + "/" + run.get("replicas").asInt() + "/"
                    + run.get("terminals").asInt());
            assertTrue(run.get("tpmC").asDouble() > 0, run.toString());
            assertTrue(run.get("latencyMs").get("p99").asDouble()
                    >= run.get("latencyMs").get("p50").asDouble());
        }
        assertEquals(
                Set.of(
                        "gargamel/1/8",
                        "gargamel/4/32",
                        "round-robin/1/8",
                        "round-robin/4/32",
                        "centralized/1/8",
                        "centralized/4/32"),
                shapes);
        Set<Integer> validated = new HashSet<>();
        for (JsonNode row : json.get("validation")) {
            validated.add(row.get("replicas").asInt());
            assertTrue(row.get("measuredTpmC").asDouble() > 0
                    && row.get("predictedTpmC").asDouble() > 0);
        }
        assertEquals(Set.of(1, 2, 3, 4), validated, "the built-in measured runs, 1 to 4 replicas");
        assertEquals(2, json.get("calibration").get("runs").size(), "calibrated from the runs at 1 and 3 replicas");
        String html = Files.readString(out.resolve("simulate.html"));
        assertTrue(html.contains("<svg") && html.contains("Validation"), "a chart and the validation table");
        assertTrue(result.out().contains("predicted tpmC"), result.toString());
    }

    @Test
    void aCalibrationThatIsNotARunIsAnErrorNamingItAndNothingIsWritten(@TempDir Path directory) throws Exception {
        Path out = directory.resolve("sim");
        CommandRunner result = CommandRunner.run(
                "simulate", "--calibration", directory.resolve("nowhere").toString(), "--out", out.toString());
        assertEquals(2, result.exitCode(), result.toString());
        assertTrue(
                result.errorLine().contains("--calibration")
                        && result.errorLine().contains("nowhere"),
                result.toString());
        assertFalse(Files.exists(out), "nothing written");

        Path broken = Files.createDirectories(directory.resolve("broken"));
        Files.writeString(broken.resolve("nodes.json"), "[{\"node\": ");
        Files.writeString(broken.resolve("result.json"), "{}");
        CommandRunner malformed =
                CommandRunner.run("simulate", "--calibration", broken.toString(), "--out", out.toString());
        assertEquals(2, malformed.exitCode(), malformed.toString());
        assertTrue(
                malformed.errorLine().contains("--calibration")
                        && malformed.errorLine().contains("nodes.json is not valid JSON"),
                malformed.toString());
        assertFalse(Files.exists(out), "nothing written");

        CommandRunner badReplicas = CommandRunner.run("simulate", "--replicas", "65", "--out", out.toString());
        assertEquals(2, badReplicas.exitCode(), badReplicas.toString());
        assertTrue(badReplicas.errorLine().contains("--replicas"), badReplicas.toString());
        assertFalse(Files.exists(out), "nothing written");
    }
}
