package org.gargamel.tpcc.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.common.postgres.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.cluster.GargamelExecutor;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.terminal.RunSettings;
import org.gargamel.tpcc.terminal.TerminalEmulator;
import org.gargamel.tpcc.workload.TransactionType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 5's acceptance test: the scheduler, three nodes and three embedded PostgreSQL replicas run a random TPC-C
 * stream in PSI, in SI, in round-robin with certification and centralized; after each, every replica passes the
 * consistency conditions and all replicas are identical table by table. The runs share the replicas, one after
 * another, each starting from identical replicas.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationTest {
    private static final Duration RUN = Duration.ofSeconds(8);
    private static PostgresCluster replicas;
    private static LoadInfo load;

    @BeforeAll
    static void loadReplicas() {
        replicas = PostgresCluster.embedded(3);
        load = new TpccLoader(new LoadOptions(1, 11, 2), LoadProgress.toStandardError()).load(replicas.jdbcUrls());
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    /** What one run did: the terminals' statistics and the nodes' counters. */
    record Outcome(RunStatistics statistics, long conflictAborts, long retries, List<Long> committedPerNode) {
    }

    private Outcome run(String mode, String isolation, long seed) throws Exception {
        RunStatistics statistics;
        long conflictAborts;
        long retries;
        List<Long> committed;
        try (InProcessGargamel gargamel = new InProcessGargamel(mode, isolation, replicas.jdbcUrls(), 3)) {
            RunSettings settings = new RunSettings(1, 6, RUN, null, false, seed,
                    NURandConstants.forRun(load.loadConstants(), new SplittableRandom(seed)), Clock.systemDefaultZone());
            statistics = new TerminalEmulator(settings, terminal -> new GargamelExecutor(gargamel.client)).run();
            gargamel.client.awaitQuiescence(Duration.ofSeconds(60));
            conflictAborts = gargamel.sum(org.gargamel.node.NodeStatistics::conflictAborts);
            retries = gargamel.sum(org.gargamel.node.NodeStatistics::retries);
            committed = gargamel.nodes.stream().map(node -> node.statistics().committed()).toList();
        }
        CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(check.passed(), mode + "/" + isolation + ":\n" + check.render());
        assertTrue(check.convergence().identical(), check.render());
        assertEquals(0, statistics.errors(), "first error: " + statistics.firstError());
        assertTrue(statistics.committed(TransactionType.NEW_ORDER) > 20, "too few New-Orders committed: "
                + statistics.committed(TransactionType.NEW_ORDER));
        return new Outcome(statistics, conflictAborts, retries, committed);
    }

    @Test
    @Order(1)
    void psiConvergesWithoutConflictAborts() throws Exception {
        Outcome outcome = run("gargamel", "psi", 1);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(0, outcome.retries(), "no serialization failure or deadlock may happen in Gargamel mode");
        assertTrue(outcome.committedPerNode().stream().filter(count -> count > 0).count() >= 2,
                "non-conflicting calls should spread over the replicas: " + outcome.committedPerNode());
    }

    @Test
    @Order(2)
    void siConvergesWithoutConflictAborts() throws Exception {
        Outcome outcome = run("gargamel", "si", 2);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(0, outcome.retries());
    }

    @Test
    @Order(3)
    void roundRobinWithCertificationConvergesAndCountsItsAborts() throws Exception {
        Outcome outcome = run("round-robin", "psi", 3);
        // One warehouse, six terminals, three replicas: Payments of that warehouse collide all the time.
        assertTrue(outcome.conflictAborts() > 0, "round-robin should meet certification aborts at one warehouse");
        assertTrue(outcome.committedPerNode().stream().allMatch(count -> count > 0),
                "round-robin uses every replica: " + outcome.committedPerNode());
    }

    @Test
    @Order(4)
    void centralizedRunsEveryUpdateOnOneReplica() throws Exception {
        Outcome outcome = run("centralized", "psi", 4);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(1, outcome.committedPerNode().stream().filter(count -> count > 0).count(),
                "centralized: every update call at one worker: " + outcome.committedPerNode());
    }
}
