package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.frontend.FrontendConfig;
import org.gargamel.frontend.FrontendServer;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.node.NodeStatistics;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.workload.ExecutionOutcome;
import org.gargamel.tpcc.workload.PgwireExecutor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The TPC-C terminals' pgwire path against the real scheduler, a node on embedded PostgreSQL and a front end: a
 * New-Order commits with its order id as the first column, also once pgjdbc has prepared the statement on the server;
 * a New-Order naming an unused item is a user abort recognised from the SQLSTATE the front end sends (GA001), as on the
 * library path; a Payment by last name (a NULL customer id, bound with no type) commits.
 */
@Tag("integration")
class PgwireExecutorTest {
    private static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 25, 12, 0);

    @Test
    void callsThroughTheFrontEndHaveTheLibrarysOutcomes() throws Exception {
        PrintStream loadProgress = System.err; // not closed: the test only lends it to the load
        try (PostgresCluster replica = TpccDatabases.startEmbeddedLoaded(1, 1, 7, loadProgress)) {
            String rules = TpccRules.temporaryFile();
            try (InProcessGargamel gargamel = InProcessGargamel.forFrontendUser(replica.jdbcUrls(), 2, rules, "tpcc");
                    FrontendServer frontend = new FrontendServer(new FrontendConfig(
                            "127.0.0.1:0",
                            GroupSettings.inMemory(),
                            rules,
                            FrontendConfig.Authentication.TRUST,
                            List.of(),
                            replica.jdbcUrls().get(0),
                            null,
                            null,
                            null,
                            null))) {
                frontend.start();
                try (PgwireExecutor terminal = new PgwireExecutor(
                        "jdbc:postgresql://127.0.0.1:" + frontend.port() + "/gargamel", "tpcc", null)) {
                    long previous = 0;
                    for (int i = 0; i < 7; i++) { // past pgjdbc's prepareThreshold (5): named, server-prepared
                        ExecutionOutcome ordered = terminal.execute(newOrder(List.of(100 + i, 200 + i, 300 + i)));
                        assertEquals(ExecutionOutcome.Kind.COMMITTED, ordered.kind(), ordered.toString());
                        assertNotNull(ordered.firstColumn(), "New-Order's order id");
                        long orderId = Long.parseLong(ordered.firstColumn());
                        if (previous != 0) {
                            assertEquals(previous + 1, orderId, "order ids of one district follow each other");
                        }
                        previous = orderId;
                    }
                    ExecutionOutcome aborted = terminal.execute(newOrder(List.of(1, 2, 100_001)));
                    assertEquals(ExecutionOutcome.Kind.USER_ABORT, aborted.kind(), aborted.toString());
                    assertEquals("GA001", aborted.sqlState());

                    ExecutionOutcome paid = terminal.execute(
                            ProcedureCall.of("payment", 1, 1, 1, 1, null, "BARBARBAR", new BigDecimal("12.50"), NOW));
                    assertEquals(ExecutionOutcome.Kind.COMMITTED, paid.kind(), paid.toString());
                }
                // Seven New-Orders and the Payment ran at the node (the aborted one is no commit).
                assertEquals(8, gargamel.sum(NodeStatistics::committed));
            }
        }
    }

    /** A New-Order of district 1 of warehouse 1 by customer 1, one of each of {@code items} from warehouse 1. */
    private static ProcedureCall newOrder(List<Integer> items) {
        Integer[] ones = new Integer[items.size()];
        Arrays.fill(ones, 1);
        return ProcedureCall.of("new_order", 1, 1, 1, items, Arrays.asList(ones), Arrays.asList(ones), NOW);
    }
}
