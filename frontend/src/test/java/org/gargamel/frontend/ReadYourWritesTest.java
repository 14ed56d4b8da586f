package org.gargamel.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pgjdbc connection through the front end reads its own writes on three replicas: a read-only call right after a
 * deposit on the same connection sees it, wherever the scheduler runs the read (the least-loaded worker of any node).
 */
@Tag("integration")
class ReadYourWritesTest {
    private static final int ROUNDS = 40;

    @Test
    void aConnectionSeesItsDepositInTheNextRead(@TempDir Path directory) throws Exception {
        try (ShopCluster cluster = new ShopCluster(3, directory);
                Connection connection = cluster.connect();
                PreparedStatement deposit = connection.prepareStatement("SELECT deposit(?, ?)");
                PreparedStatement read = connection.prepareStatement("SELECT * FROM statement(?)")) {
            List<String> stale = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                int id = 1 + round % 4;
                deposit.setInt(1, id);
                deposit.setBigDecimal(2, BigDecimal.ONE);
                BigDecimal written;
                try (ResultSet rows = deposit.executeQuery()) {
                    assertTrue(rows.next());
                    written = rows.getBigDecimal(1);
                }
                read.setInt(1, id);
                try (ResultSet rows = read.executeQuery()) {
                    assertTrue(rows.next());
                    if (rows.getBigDecimal("balance").compareTo(written) != 0) {
                        stale.add("round " + round + ": wrote " + written + ", read " + rows.getBigDecimal("balance"));
                    }
                }
            }
            assertEquals(List.of(), stale, "reads that missed the connection's own deposit");
        }
    }
}
