package org.gargamel.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The second application as a user runs it: {@code gargamel bank run} from the all-in-one jar loads the bank into three
 * embedded PostgreSQL replicas, starts the scheduler and three nodes with the bank's rules, drives the terminals for
 * 20 s, and must report no error and no torn read, every invariant holding on every replica, identical replicas, and
 * leave no process or file behind. Each terminal is a client session: a call on the account it has just opened must
 * find it, whichever replica runs the call (0 read-your-writes misses).
 */
@Tag("e2e")
class BankIT {

    @Test
    void aBankRunThroughThreeReplicasKeepsEveryInvariant(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory)
            throws Exception {
        Path out = directory.resolve("result");
        String output = GargamelProcess.runCleanly(
                directory,
                5,
                "bank",
                "run",
                "--replicas",
                "3",
                "--terminals",
                "8",
                "--duration",
                "20s",
                "--seed",
                "5",
                "--out",
                out.toString());

        JsonNode result = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertEquals("bank", result.get("application").asText());
        assertEquals(3, result.get("replicas").asInt());
        assertEquals(0, result.get("errors").asLong(), output);
        assertEquals(0, result.get("tornReads").asLong(), output);
        for (String procedure :
                List.of("open_account", "deposit", "withdraw", "transfer", "account_statement", "branch_audit")) {
            assertTrue(result.get("committed").get(procedure).asLong() > 0, procedure + " committed: " + output);
        }
        assertTrue(result.get("invariants").get("passed").asBoolean(), output);
        JsonNode databases = result.get("invariants").get("databases");
        assertEquals(3, databases.size(), output);
        for (JsonNode database : databases) {
            assertTrue(database.get("passed").asBoolean(), database.toString());
            assertEquals(7, database.get("invariants").size(), database.toString());
        }
        assertTrue(result.get("convergence").get("identical").asBoolean(), output);
        assertEquals(3, result.get("convergence").get("databases").size(), output);
        assertEquals(4, result.get("convergence").get("tables").size(), output);
        assertEquals(0, result.get("readYourWritesMisses").asLong(), "each terminal reads its own writes: " + output);
        assertTrue(output.contains("convergence of 3 database(s): identical"), output);
    }
}
