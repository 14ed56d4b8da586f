package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.group.SiteDelay;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.launcher.verify.OnlineVerify;
import org.gargamel.node.NodeConfig;
import org.gargamel.node.NodeServer;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.scheduler.sites.Decision;
import org.gargamel.scheduler.sites.LogOrderAgreement;
import org.gargamel.scheduler.sites.OwnedAgreement;
import org.gargamel.scheduler.sites.ScheduleLog;
import org.gargamel.scheduler.sites.SiteScheduler;
import org.gargamel.scheduler.sites.SiteSettings;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.result.RunStatistics;
import org.gargamel.tpcc.schema.LoadInfo;
import org.gargamel.tpcc.schema.TpccSchema;
import org.gargamel.tpcc.terminal.RunSettings;
import org.gargamel.tpcc.terminal.TerminalEmulator;
import org.gargamel.tpcc.workload.GargamelExecutor;
import org.gargamel.tpcc.workload.NewOrder;
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
    private static final ClassifierRules RULES = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
    private static final Duration RUN = Duration.ofSeconds(8);
    private static PostgresCluster replicas;
    private static LoadInfo load;

    @BeforeAll
    static void loadReplicas() throws java.sql.SQLException {
        replicas = TpccDatabases.startEmbeddedLoaded(3, 1, 11, System.err);
        try (Connection connection = replicas.connect(0)) {
            load = TpccSchema.readLoadInfo(connection);
        }
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.close();
        }
    }

    /**
     * What one run did: the terminals' statistics and the nodes' counters ({@code unsoundWrites}: calls that wrote
     * outside their TPC-C rule, checked with rulesCheck reject, the default).
     */
    record Outcome(
            RunStatistics statistics,
            long conflictAborts,
            long retries,
            long unsoundWrites,
            List<Long> committedPerNode,
            long appliedBesideAnother,
            long applyGroups) {}

    private Outcome run(String mode, String isolation, long seed) throws Exception {
        return run(mode, isolation, seed, NodeConfig.DEFAULT_APPLIERS);
    }

    private Outcome run(String mode, String isolation, long seed, int appliers) throws Exception {
        RunStatistics statistics;
        long conflictAborts;
        long retries;
        long unsoundWrites;
        List<Long> committed;
        long appliedBesideAnother;
        long applyGroups;
        try (InProcessGargamel gargamel =
                InProcessGargamel.withAppliers(mode, isolation, replicas.jdbcUrls(), 3, appliers)) {
            RunSettings settings = new RunSettings(
                    1,
                    6,
                    Duration.ZERO,
                    RUN,
                    null,
                    false,
                    seed,
                    NURandConstants.forRun(load.loadConstants(), new SplittableRandom(seed)),
                    Clock.systemUTC());
            statistics = new TerminalEmulator(settings, terminal -> new GargamelExecutor(gargamel.client)).run();
            gargamel.client.awaitQuiescence(Duration.ofSeconds(60));
            conflictAborts = gargamel.sum(org.gargamel.node.NodeStatistics::conflictAborts);
            retries = gargamel.sum(org.gargamel.node.NodeStatistics::retries);
            unsoundWrites = gargamel.sum(org.gargamel.node.NodeStatistics::unsoundWrites);
            committed = gargamel.nodes.stream()
                    .map(node -> node.statistics().committed())
                    .toList();
            appliedBesideAnother = gargamel.sum(org.gargamel.node.NodeStatistics::appliedBesideAnotherCount);
            applyGroups = gargamel.sum(org.gargamel.node.NodeStatistics::applyGroupCount);
            System.out.printf(
                    "%s/%s, %d applier(s): %d apply groups, %d of them gave way%n",
                    mode,
                    isolation,
                    appliers,
                    applyGroups,
                    gargamel.sum(org.gargamel.node.NodeStatistics::groupsGaveWayCount));
        }
        CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(check.passed(), mode + "/" + isolation + ":\n" + check.render());
        assertTrue(check.convergence().identical(), check.render());
        assertEquals(0, statistics.errors(), "first error: " + statistics.firstError());
        assertTrue(
                statistics.committed(TransactionType.NEW_ORDER) > 20,
                "too few New-Orders committed: " + statistics.committed(TransactionType.NEW_ORDER));
        return new Outcome(
                statistics, conflictAborts, retries, unsoundWrites, committed, appliedBesideAnother, applyGroups);
    }

    @Test
    @Order(1)
    void psiConvergesWithoutConflictAborts() throws Exception {
        Outcome outcome = run("gargamel", "psi", 1);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(0, outcome.unsoundWrites(), "the TPC-C rules cover every write (PSI: rows and columns)");
        assertEquals(0, outcome.retries(), "no serialization failure or deadlock may happen in Gargamel mode");
        assertTrue(
                outcome.committedPerNode().stream().filter(count -> count > 0).count() >= 2,
                "non-conflicting calls should spread over the replicas: " + outcome.committedPerNode());
        // Apply groups (docs/node.md) are on by default: the run must have applied some, and a group that met a local
        // call's row lock gave way instead of aborting the call (0 retries above).
        assertTrue(outcome.applyGroups() > 0, "no write-sets were applied together in one transaction");
    }

    @Test
    @Order(2)
    void siConvergesWithoutConflictAborts() throws Exception {
        Outcome outcome = run("gargamel", "si", 2);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(0, outcome.unsoundWrites(), "the TPC-C rules cover every write (SI: rows)");
        assertEquals(0, outcome.retries());
        assertTrue(outcome.applyGroups() > 0, "no write-sets were applied together in one transaction");
    }

    /**
     * C5's parallel apply (docs/node.md): four connections per node apply the other replicas' write-sets, row by row
     * in log order. TPC-C's write-sets share districts and stock rows, so many wait for one another; the replicas
     * must still be identical and consistent, and some applies must really have overlapped.
     */
    @Test
    @Order(2)
    void psiWithParallelApplyConverges() throws Exception {
        Outcome outcome = run("gargamel", "psi", 5, 4);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(0, outcome.retries(), "parallel apply must not meet a deadlock or serialization failure");
        assertTrue(outcome.appliedBesideAnother() > 0, "no two write-sets were ever applied at once");
    }

    /** The same in SI, where the parallel appliers' commits keep the log's order. */
    @Test
    @Order(2)
    void siWithParallelApplyConverges() throws Exception {
        Outcome outcome = run("gargamel", "si", 6, 4);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(0, outcome.retries());
        assertTrue(outcome.appliedBesideAnother() > 0, "no two write-sets were ever applied at once");
    }

    @Test
    @Order(3)
    void roundRobinWithCertificationConvergesAndCountsItsAborts() throws Exception {
        Outcome outcome = run("round-robin", "psi", 3);
        // One warehouse, six terminals, three replicas: Payments of that warehouse collide all the time.
        assertTrue(outcome.conflictAborts() > 0, "round-robin should meet certification aborts at one warehouse");
        assertTrue(
                outcome.committedPerNode().stream().allMatch(count -> count > 0),
                "round-robin uses every replica: " + outcome.committedPerNode());
    }

    @Test
    @Order(4)
    void centralizedRunsEveryUpdateOnOneReplica() throws Exception {
        Outcome outcome = run("centralized", "psi", 4);
        assertEquals(0, outcome.conflictAborts());
        assertEquals(
                1,
                outcome.committedPerNode().stream().filter(count -> count > 0).count(),
                "centralized: every update call at one worker: " + outcome.committedPerNode());
    }

    /**
     * New-Order and Payment of one district write different columns of the same district row (d_next_o_id and
     * d_ytd): they do not conflict, so the scheduler may run them at the same time. Here a fake scheduler forces
     * it — a New-Order chain and a Payment chain of district (1, 1), first on two replicas, then on two workers of
     * one replica — and every call must commit without a conflict abort, retry or deadlock, with both columns'
     * updates on every replica.
     */
    @Test
    @Order(5)
    void newOrderAndPaymentOfOneDistrictRunTogetherOnTwoReplicasAndOnTwoWorkers() throws Exception {
        int pairs = 60;
        BigDecimal ytdBefore = districtYtd(0);
        int nextOrderBefore = districtNextOrder(0);
        try (NodeCluster cluster = new NodeCluster("psi")) {
            FakeScheduler scheduler = cluster.scheduler;
            long txn = 0;
            for (String[] placement : new String[][] {{"node-1", "0", "node-2", "0"}, {"node-1", "0", "node-1", "1"}}) {
                long first = txn + 1;
                long previousNewOrder = 0;
                long previousPayment = 0;
                for (int i = 0; i < pairs; i++) {
                    long newOrder = ++txn;
                    scheduler.execute(
                            placement[0],
                            Integer.parseInt(placement[1]),
                            newOrder,
                            previousNewOrder == 0 ? new long[0] : new long[] {previousNewOrder},
                            newOrderCall(i));
                    long payment = ++txn;
                    scheduler.execute(
                            placement[2],
                            Integer.parseInt(placement[3]),
                            payment,
                            previousPayment == 0 ? new long[0] : new long[] {previousPayment},
                            paymentCall(i));
                    previousNewOrder = newOrder;
                    previousPayment = payment;
                }
                scheduler.awaitVisibleEverywhere(first, txn);
            }
            assertEquals(
                    Map.of(CallOutcome.Status.COMMITTED, 4 * pairs),
                    scheduler.statusCounts(),
                    scheduler.outcomes.toString());
            assertEquals(0, cluster.sum(org.gargamel.node.NodeStatistics::conflictAborts));
            assertEquals(
                    0, cluster.sum(org.gargamel.node.NodeStatistics::retries), "no serialization failure or deadlock");
        }
        for (int replica = 0; replica < 3; replica++) {
            assertEquals(nextOrderBefore + 2 * pairs, districtNextOrder(replica), "d_next_o_id on replica " + replica);
            assertEquals(
                    0,
                    ytdBefore
                            .add(new BigDecimal("1.00").multiply(BigDecimal.valueOf(2L * pairs)))
                            .compareTo(districtYtd(replica)),
                    "d_ytd on replica " + replica);
        }
        CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(check.passed(), check.render());
    }

    /** A procedure error in the middle of a chain is reported to its client and does not stall the chain. */
    @Test
    @Order(6)
    void aProcedureErrorMidChainDoesNotStallIt() throws Exception {
        try (NodeCluster cluster = new NodeCluster("psi")) {
            FakeScheduler scheduler = cluster.scheduler;
            long base = 10_000;
            scheduler.execute("node-1", 0, base + 1, new long[0], newOrderCall(1));
            ProcedureCall invalid = ProcedureCall.of(
                    "new_order",
                    1,
                    1,
                    7,
                    List.of(1, NewOrder.UNUSED_ITEM_ID),
                    List.of(1, 1),
                    List.of(1, 1),
                    LocalDateTime.of(2026, 1, 1, 0, 0));
            scheduler.execute("node-2", 1, base + 2, new long[] {base + 1}, invalid);
            scheduler.execute("node-3", 2, base + 3, new long[] {base + 2}, newOrderCall(2));
            scheduler.awaitVisibleEverywhere(base + 1, base + 3);
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.outcomes.get(base + 1).status());
            CallOutcome aborted = scheduler.outcomes.get(base + 2);
            assertEquals(CallOutcome.Status.USER_ABORTED, aborted.status());
            assertEquals("GA001", aborted.sqlState(), aborted.toString());
            assertEquals(
                    CallOutcome.Status.COMMITTED,
                    scheduler.outcomes.get(base + 3).status(),
                    "the call after the error ran: " + scheduler.outcomes.get(base + 3));
        }
        CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(check.passed(), check.render());
    }

    /**
     * Multi-site (docs/multisite.md), the sites wired by the test: eu runs its calls on node-1, us on node-2, and ap
     * (node-3's site) only takes part in the schedule log. eu and us place New-Orders of one district at once, each
     * with its SiteScheduler, dispatch them provisional and append them to a real schedule log (jgroups-raft, 20 ms
     * between sites); what the log hands back becomes the AGREEMENTs the nodes get. The sites collide, and the losers
     * are cancelled or killed and run again after the winners; every call commits once, the district's order ids are
     * exactly the next ones on every replica, TPC-C's consistency holds and the replicas are identical.
     */
    @Test
    @Order(7)
    void twoSitesOrderingOneDistrictAtOnceCollideAndStillCommitEveryCallOnce() throws Exception {
        int nextOrderBefore = districtNextOrder(0);
        List<String> sites = List.of("eu", "us", "ap");
        Map<String, String> nodeOf = Map.of("eu", "node-1", "us", "node-2", "ap", "node-3");
        SiteDelay.Links links =
                SiteDelay.Links.uniform(Map.of("eu", "eu", "us", "us", "ap", "ap"), Duration.ofMillis(20));
        int perSite = 15;
        Map<String, SiteScheduler> siteSchedulers = new java.util.LinkedHashMap<>();
        List<ScheduleLog> logs = new java.util.ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        try (NodeCluster cluster = new NodeCluster("psi")) {
            FakeScheduler scheduler = cluster.scheduler;
            for (String site : sites) {
                Scheduler core = new Scheduler(RULES, Mode.GARGAMEL, Isolation.PSI);
                // Each site's ids in a space of their own, as distinct epochs give them (a node keeps one window per
                // space: with one for all, this test created an order twice).
                core.startTransactionIdsAt((sites.indexOf(site) + 1L) << 32 | 1);
                core.addNode(nodeOf.get(site), 3);
                SiteScheduler siteScheduler = new SiteScheduler(core, LogOrderAgreement.optimistic(site), RULES);
                siteSchedulers.put(site, siteScheduler);
                logs.add(new ScheduleLog(
                        site,
                        Channels.scheduleLog(
                                GroupConfig.inMemory(), site, new RaftSettings(site, sites, null, false), links),
                        entry -> {
                            List<Decision> decisions;
                            synchronized (siteScheduler) {
                                decisions = siteScheduler.read(entry);
                            }

                            for (Decision decision : decisions) {
                                Decision.Agreed agreement = (Decision.Agreed) decision;
                                try {
                                    scheduler.agree(
                                            nodeOf.get(site),
                                            agreement.txn(),
                                            agreement.collided(),
                                            agreement.dependencies());
                                } catch (Exception e) {
                                    failures.add(e);
                                }
                            }
                        },
                        RaftLog.Patience.DEFAULT));
            }
            for (ScheduleLog log : logs) {
                log.connect();
            }
            List<Long> txns = new java.util.ArrayList<>();
            List<java.util.concurrent.CompletableFuture<Void>> appended = new java.util.ArrayList<>();
            for (int i = 0; i < perSite; i++) {
                for (String site : List.of("eu", "us")) {
                    SiteScheduler siteScheduler = siteSchedulers.get(site);
                    ProcedureCall call = newOrderCall(2 * i + (site.equals("us") ? 1 : 0));
                    SiteScheduler.HomeCall home;
                    synchronized (siteScheduler) {
                        home = siteScheduler.place(call, 0);
                    }
                    txns.add(home.placement().txn());

                    scheduler.executeProvisional(
                            nodeOf.get(site),
                            home.placement().worker().index(),
                            home.placement().txn(),
                            home.placement().backDependencies(),
                            call);
                    appended.add(logs.get(sites.indexOf(site)).append(home.entry()));
                }
            }
            java.util.concurrent.CompletableFuture.allOf(
                            appended.toArray(java.util.concurrent.CompletableFuture[]::new))
                    .get(60, java.util.concurrent.TimeUnit.SECONDS);
            scheduler.awaitVisibleEverywhere(txns);
            assertEquals(List.of(), failures);
            assertEquals(Map.of(CallOutcome.Status.COMMITTED, 2 * perSite), scheduler.statusCounts());
            long collided = 0;
            for (SiteScheduler siteScheduler : siteSchedulers.values()) {
                synchronized (siteScheduler) {
                    collided += ((LogOrderAgreement.Counters) siteScheduler.counters()).collided();
                }
            }
            assertTrue(collided > 0, "two sites ordering one district at once must collide");
            assertEquals(
                    collided,
                    cluster.sum(org.gargamel.node.NodeStatistics::killedCount)
                            + cluster.sum(org.gargamel.node.NodeStatistics::cancelledCount),
                    "every collided call was cancelled or killed at its node");
            assertEquals(0, cluster.sum(org.gargamel.node.NodeStatistics::retries), "no serialization failure");
        } finally {
            logs.forEach(ScheduleLog::close);
        }
        for (int replica = 0; replica < 3; replica++) {
            assertEquals(
                    nextOrderBefore + 2 * perSite, districtNextOrder(replica), "d_next_o_id on replica " + replica);
        }
        CheckReport check = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(check.passed(), check.render());
        assertTrue(check.convergence().identical(), check.render());
    }

    /**
     * Issue 38's online divergence check: beside TPC-C payments in PSI on three replicas, {@code verify} finds the
     * replicas identical (keys that differ while their writes are in flight agree once every replica reached a common
     * log position); a customer row changed by hand on one replica is named, table and key, and once restored the
     * replicas are identical again; so is a history row (no primary key) held twice on one replica.
     */
    @Test
    @Order(9)
    void verifyFindsNoDivergenceBesideARunAndNamesARowChangedByHand() throws Exception {
        OnlineVerify.Options options = new OnlineVerify.Options(1024, 100_000_000, Duration.ofSeconds(60));
        List<String> names = List.of("replica-1", "replica-2", "replica-3");
        try (InProcessGargamel gargamel = new InProcessGargamel("gargamel", "psi", replicas.jdbcUrls(), 3)) {
            // Payments, four at a time, until the check is done: the warehouse's and districts' rows are hot.
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicLong paid = new java.util.concurrent.atomic.AtomicLong();
            java.util.concurrent.CompletableFuture<Void> load = java.util.concurrent.CompletableFuture.runAsync(() -> {
                SplittableRandom random = new SplittableRandom(9);
                try {
                    while (!stop.get()) {
                        List<java.util.concurrent.CompletableFuture<CallOutcome>> batch = new ArrayList<>();
                        for (int i = 0; i < 4; i++) {
                            int district = 1 + random.nextInt(10);
                            batch.add(gargamel.client.submit(ProcedureCall.of(
                                    "payment",
                                    1,
                                    district,
                                    1,
                                    district,
                                    1 + random.nextInt(3000),
                                    null,
                                    new java.math.BigDecimal("1.00"),
                                    java.time.LocalDateTime.of(2026, 11, 29, 12, 0))));
                        }
                        for (java.util.concurrent.CompletableFuture<CallOutcome> outcome : batch) {
                            CallOutcome done = outcome.get();
                            if (done.status() != CallOutcome.Status.COMMITTED) {
                                throw new IllegalStateException("a payment did not commit: " + done);
                            }
                            paid.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (paid.get() < 20 && System.nanoTime() < deadline && !load.isDone()) {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // polling until the load runs
            }
            long paidBefore = paid.get();
            OnlineVerify.Report underLoad = new OnlineVerify(replicas.jdbcUrls(), names, options, System.err).run();
            long paidDuring = paid.get() - paidBefore;
            stop.set(true);
            load.get();
            assertTrue(paidDuring > 0, "the check must run beside the traffic: no payment during it");
            assertTrue(underLoad.identical(), "divergences under load: " + underLoad.divergences());
            assertTrue(underLoad.rowsRead() > 500_000, "every table read: " + underLoad.rowsRead());
            System.out.printf(
                    "verify beside %d payments: identical, %d keys in flight in round 1%n",
                    paidDuring, underLoad.inFlight());
            gargamel.client.awaitQuiescence(Duration.ofSeconds(60));
            String tampered = "UPDATE customer SET c_data = %s WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 42";
            String original;
            try (Connection connection = replicas.connect(1);
                    Statement statement = connection.createStatement()) {
                try (ResultSet rows = statement.executeQuery(
                        "SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 42")) {
                    assertTrue(rows.next());
                    original = rows.getString(1);
                }
                statement.execute(tampered.formatted("'changed by hand'")); // capture is off: not replicated
            }
            OnlineVerify.Report diverged;
            try {
                diverged = new OnlineVerify(replicas.jdbcUrls(), names, options, System.err).run();
            } finally { // the later tests start from identical replicas, whatever this one found
                try (Connection connection = replicas.connect(1);
                        java.sql.PreparedStatement statement = connection.prepareStatement(tampered.formatted("?"))) {
                    statement.setString(1, original);
                    statement.executeUpdate();
                }
            }
            assertEquals(
                    1, diverged.divergences().size(), diverged.divergences().toString());
            OnlineVerify.Divergence found = diverged.divergences().get(0);
            assertEquals("customer", found.table());
            assertEquals("(1,3,42)", found.key());
            assertEquals(found.rowHashes().get(0), found.rowHashes().get(2));
            assertNotEquals(found.rowHashes().get(0), found.rowHashes().get(1));
            // history has no primary key: a row held twice on one replica is a divergence too.
            String copy;
            try (Connection connection = replicas.connect(2);
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(
                            "INSERT INTO history SELECT * FROM history LIMIT 1 RETURNING ctid::text")) {
                assertTrue(rows.next());
                copy = rows.getString(1);
            }
            OnlineVerify.Report twice;
            try {
                twice = new OnlineVerify(replicas.jdbcUrls(), names, options, System.err).run();
            } finally {
                try (Connection connection = replicas.connect(2);
                        Statement statement = connection.createStatement()) {
                    statement.execute("DELETE FROM history WHERE ctid = '" + copy + "'::tid");
                }
            }
            assertEquals(1, twice.divergences().size(), twice.divergences().toString());
            assertEquals("history", twice.divergences().get(0).table());
            assertTrue(new OnlineVerify(replicas.jdbcUrls(), names, options, System.err)
                    .run()
                    .identical());
        }
    }

    /**
     * Sites as they run in production, in this JVM: three site schedulers (eu, us, ap: real {@link SchedulerServer}s
     * with a {@code site} section, 50 ms apart on the schedule log) each with its own control group, one node each
     * (real {@link NodeServer}s on the three loaded replicas, one write-set log across the sites), and a client at eu
     * and one at us. Both clients send New-Orders of one district at once, and Payments of one customer: the sites
     * collide, the collided calls are cancelled or killed at their node and run again after the winners, and every
     * call gets its one outcome, committed once. The district's order ids are exactly the next ones everywhere, TPC-C's
     * consistency holds and the replicas converge.
     */
    @Test
    @Order(8)
    void siteSchedulersAgreeThroughTheScheduleLogAndEveryCallCommitsOnce() throws Exception {
        runSites(
                site -> new SiteSettings(site, SITES, GroupSettings.inMemory(), "optimistic", delaysFrom(site)),
                (schedulers, nodes) -> {
                    long collided = 0;
                    for (SchedulerServer scheduler : schedulers) {
                        collided += scheduler.agreementCounters().orElseThrow().collided();
                    }
                    long killed = nodes.stream()
                            .mapToLong(node -> node.statistics().killedCount())
                            .sum();
                    long cancelled = nodes.stream()
                            .mapToLong(node -> node.statistics().cancelledCount())
                            .sum();
                    System.err.printf(
                            "site schedulers: %d collided (%d killed, %d cancelled at the nodes)%n",
                            collided, killed, cancelled);
                    assertTrue(collided > 0, "two sites writing one district at once must collide");
                    assertEquals(
                            collided, killed + cancelled, "every collided call was cancelled or killed at its node");
                });
    }

    /**
     * The same sites with site-owned conflict classes (docs/multisite.md): warehouse 1 is eu's. eu's calls on it are
     * local (placed by eu alone, never in the schedule log); us's calls on the same district and customer go through
     * the log, are placed by eu among its own, and run at us's node behind a barrier. Every call commits once, none is
     * provisional, the order ids are exactly the next ones everywhere and the replicas converge.
     */
    @Test
    @Order(8)
    void withSiteOwnedClassesTheOwnersCallsStayLocalAndTheOthersGoThroughTheOwner() throws Exception {
        runSites(
                site -> new SiteSettings(site, SITES, GroupSettings.inMemory(), "owned", delaysFrom(site))
                        .owning(Map.of("eu", List.of(1L), "us", List.of(2L), "ap", List.of(3L))),
                (schedulers, nodes) -> {
                    OwnedAgreement.Counters eu =
                            schedulers.get(0).ownedCounters().orElseThrow();
                    OwnedAgreement.Counters us =
                            schedulers.get(1).ownedCounters().orElseThrow();
                    System.err.printf("site-owned classes: eu %s, us %s%n", eu, us);
                    assertEquals(new OwnedAgreement.Counters(24, 0, 24, 0, 0, 0, 0, 0), eu, "eu's calls are all local");
                    assertEquals(24, us.spanning(), "us's calls all write eu's rows");
                    assertEquals(0, us.local() + us.placedForOthers());
                    assertEquals(
                            0,
                            nodes.stream()
                                    .mapToLong(node -> node.statistics().provisionalCount())
                                    .sum(),
                            "no call runs before its place is known");
                });
    }

    /**
     * The same sites with the abort-free agreement (docs/multisite.md, Abort-free agreement): every site places every
     * call as it comes, its own at once and the others' as it reads them from the log, so eu and us, ordering one
     * district at once, each put their own New-Orders first: the placements form dependency cycles, which every site
     * runs in id order. Nothing runs before its place is known, nothing is cancelled or killed, every call commits
     * once, the order ids are exactly the next ones everywhere and the replicas converge.
     */
    @Test
    @Order(8)
    void abortFreeSitesOrderCollidingCallsWithoutCancellingOrKillingAny() throws Exception {
        runSites(
                site -> new SiteSettings(site, SITES, GroupSettings.inMemory(), "abort-free", delaysFrom(site)),
                (schedulers, nodes) -> {
                    long cycles = 0;
                    for (SchedulerServer scheduler : schedulers) {
                        OwnedAgreement.Counters counted =
                                scheduler.ownedCounters().orElseThrow();
                        System.err.printf("abort-free: %s%n", counted);
                        assertEquals(0, counted.local(), "no call is placed by one site alone");
                        cycles = Math.max(cycles, counted.groups());
                    }
                    assertTrue(cycles > 0, "two sites ordering one district at once must form a dependency cycle");
                    for (NodeServer node : nodes) {
                        assertEquals(0, node.statistics().provisionalCount(), node.name() + ": nothing provisional");
                        assertEquals(
                                0,
                                node.statistics().killedCount()
                                        + node.statistics().cancelledCount(),
                                node.name() + ": nothing cancelled or killed");
                    }
                });
    }

    /**
     * The same with a write-set log per site (docs/multisite.md, Site-local acknowledgement): each node's site log is
     * its own, a call is acknowledged once its site holds it, and each site's write-sets are shipped into the other
     * sites' logs. us's spanning calls wait behind their barrier for what eu had logged when it placed them, shipped to
     * us. Every call commits once, every replica applies every New-Order, and the replicas converge.
     */
    @Test
    @Order(8)
    void withAWriteSetLogPerSiteEachSitesWriteSetsAreShippedToTheOthers() throws Exception {
        runSites(
                site -> new SiteSettings(site, SITES, GroupSettings.inMemory(), "owned", delaysFrom(site))
                        .owning(Map.of("eu", List.of(1L), "us", List.of(2L), "ap", List.of(3L))),
                node -> node.toBuilder()
                        .siteOfReplicas(Map.of("node-1", "eu", "node-2", "us", "node-3", "ap"))
                        .siteLog(true)
                        .build(),
                (schedulers, nodes) -> {
                    OwnedAgreement.Counters us =
                            schedulers.get(1).ownedCounters().orElseThrow();
                    assertEquals(24, us.spanning(), "us's calls all write eu's rows");
                    for (NodeServer node : nodes) {
                        assertEquals(1, node.writeSetLogMembers().size(), node.name() + "'s log is its site's alone");
                    }
                    assertTrue(nodes.get(1).statistics().barrierCount() > 0, "us's spanning calls ran behind barriers");
                    assertTrue(
                            nodes.get(1).shippedThrough("eu") > 0
                                    && nodes.get(2).shippedThrough("eu") > 0,
                            "eu's write-sets were shipped to us and ap");
                    assertTrue(nodes.get(0).shippedThrough("us") > 0, "us's write-sets were shipped to eu");
                });
    }

    private static final List<String> SITES = List.of("eu", "us", "ap");

    private static Map<String, Integer> delaysFrom(String site) {
        Map<String, Integer> delays = new java.util.HashMap<>();
        SITES.stream().filter(other -> !other.equals(site)).forEach(other -> delays.put(other, 50));
        return delays;
    }

    /**
     * Sites as they run in production, in this JVM: three site schedulers (eu, us, ap: real {@link SchedulerServer}s
     * with the {@code site} section {@code settings} gives, 50 ms apart on the schedule log) each with its own control
     * group, one node each (real {@link NodeServer}s on the three loaded replicas, one write-set log across the sites),
     * and a client at eu and one at us. Both clients send 12 New-Orders of one district at once, and 12 Payments of one
     * customer. Every call gets its one outcome, committed once, with no serialization failure; {@code check} looks at
     * the schedulers and nodes before they close. The district's order ids are exactly the next ones everywhere, TPC-C's
     * consistency holds and the replicas converge.
     */
    private static void runSites(java.util.function.Function<String, SiteSettings> settings, SiteCheck check)
            throws Exception {
        runSites(settings, java.util.function.UnaryOperator.identity(), check);
    }

    /** As above, each node's configuration changed by {@code nodeConfig}. */
    private static void runSites(
            java.util.function.Function<String, SiteSettings> settings,
            java.util.function.UnaryOperator<NodeConfig> nodeConfig,
            SiteCheck check)
            throws Exception {
        int nextOrderBefore = districtNextOrder(0);
        String rules = TpccRules.temporaryFile();
        List<SchedulerServer> schedulers = new java.util.ArrayList<>();
        List<NodeServer> nodes = new java.util.ArrayList<>();
        List<GargamelClient> clients = new java.util.ArrayList<>();
        int perSite = 12;
        try {
            for (String site : SITES) {
                SchedulerServer scheduler = new SchedulerServer(
                        new SchedulerConfig(GroupSettings.inMemory(), Mode.GARGAMEL, Isolation.PSI, rules, 100_000)
                                .withSite(settings.apply(site)));
                schedulers.add(scheduler);
            }
            for (SchedulerServer scheduler : schedulers) {
                scheduler.start(); // each waits for no one: the schedule log elects once two sites are in
            }
            for (int i = 0; i < SITES.size(); i++) {
                nodes.add(new NodeServer(nodeConfig.apply(NodeConfig.builder()
                        .name("node-" + (i + 1))
                        .jdbcUrl(replicas.jdbcUrl(i))
                        .workers(3)
                        .mode(Mode.GARGAMEL)
                        .isolation(Isolation.PSI)
                        .rules(rules)
                        .control(GroupSettings.inMemory())
                        .writeSets(GroupSettings.inMemory())
                        .replicas(InProcessGargamel.members(3))
                        .site(SITES.get(i))
                        .build())));
            }
            InProcessGargamel.startAll(nodes);
            for (String site : List.of("eu", "us")) {
                GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), ClientOptions.defaults(), site);
                client.awaitNodes(1, Duration.ofSeconds(30));
                clients.add(client);
            }
            List<java.util.concurrent.CompletableFuture<CallOutcome>> outcomes = new java.util.ArrayList<>();
            for (int i = 0; i < perSite; i++) {
                for (int c = 0; c < clients.size(); c++) {
                    GargamelClient client = clients.get(c);
                    outcomes.add(client.submit(newOrderCall(1000 + 2 * i + c)));
                    outcomes.add(client.submit(paymentCall(1000 + 2 * i + c)));
                }
            }
            Map<CallOutcome.Status, Integer> statuses = new java.util.EnumMap<>(CallOutcome.Status.class);
            for (java.util.concurrent.CompletableFuture<CallOutcome> outcome : outcomes) {
                CallOutcome done = outcome.get(90, java.util.concurrent.TimeUnit.SECONDS);
                statuses.merge(done.status(), 1, Integer::sum);
                assertEquals(CallOutcome.Status.COMMITTED, done.status(), done.toString());
            }
            assertEquals(Map.of(CallOutcome.Status.COMMITTED, 4 * perSite), statuses);
            check.check(schedulers, nodes);
            assertEquals(
                    0,
                    nodes.stream()
                            .mapToLong(node -> node.statistics().retries())
                            .sum(),
                    "no serialization failure");
            int expected = nextOrderBefore + 2 * perSite;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (true) {
                List<Integer> seen = List.of(districtNextOrder(0), districtNextOrder(1), districtNextOrder(2));
                if (seen.equals(List.of(expected, expected, expected))) {
                    break;
                }
                assertTrue(
                        System.nanoTime() < deadline,
                        "every replica applies every New-Order: d_next_o_id " + seen + ", expected " + expected);
                Thread.sleep(50);
            }
        } finally {
            clients.forEach(GargamelClient::close);
            nodes.forEach(NodeServer::close);
            schedulers.forEach(SchedulerServer::close);
        }
        CheckReport report = new CheckRunner().run(replicas.jdbcUrls());
        assertTrue(report.passed(), report.render());
        assertTrue(report.convergence().identical(), report.render());
    }

    /** What a sites test checks once every call has its outcome, before the schedulers and nodes close. */
    @FunctionalInterface
    private interface SiteCheck {
        void check(List<SchedulerServer> schedulers, List<NodeServer> nodes) throws Exception;
    }

    private static ProcedureCall newOrderCall(int i) {
        int lines = 5 + i % 5;
        List<Integer> items = new java.util.ArrayList<>();
        for (int line = 0; line < lines; line++) {
            items.add(1 + (i * 37 + line * 101) % 100_000);
        }
        return ProcedureCall.of(
                "new_order",
                1,
                1,
                1 + i % 3000,
                items,
                java.util.Collections.nCopies(lines, 1),
                java.util.Collections.nCopies(lines, 2),
                LocalDateTime.of(2026, 1, 1, 10, 0, i % 60));
    }

    private static ProcedureCall paymentCall(int i) {
        return ProcedureCall.of(
                "payment",
                1,
                1,
                1,
                1,
                1 + i % 3000,
                null,
                new BigDecimal("1.00"),
                LocalDateTime.of(2026, 1, 1, 10, 0, i % 60));
    }

    private static BigDecimal districtYtd(int replica) throws Exception {
        try (Connection connection = replicas.connect(replica);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = 1")) {
            row.next();
            return row.getBigDecimal(1);
        }
    }

    private static int districtNextOrder(int replica) throws Exception {
        try (Connection connection = replicas.connect(replica);
                Statement statement = connection.createStatement();
                ResultSet row =
                        statement.executeQuery("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 1")) {
            row.next();
            return row.getInt(1);
        }
    }

    /** Three nodes on the replicas, driven by a {@link FakeScheduler}. */
    private static final class NodeCluster implements AutoCloseable {
        final FakeScheduler scheduler;
        final List<NodeServer> nodes = new java.util.ArrayList<>();

        NodeCluster(String isolation) throws Exception {
            scheduler = new FakeScheduler();
            for (int i = 0; i < 3; i++) {
                NodeServer node = new NodeServer(NodeConfig.builder()
                        .name("node-" + (i + 1))
                        .jdbcUrl(replicas.jdbcUrl(i))
                        .workers(3)
                        .mode(Mode.GARGAMEL)
                        .isolation(Isolation.parse(isolation))
                        .rules(TpccRules.temporaryFile())
                        .control(GroupSettings.inMemory())
                        .writeSets(GroupSettings.inMemory())
                        .replicas(InProcessGargamel.members(3))
                        .build());
                nodes.add(node);
            }
            InProcessGargamel.startAll(
                    nodes); // together: a node's start waits for the write-set log, which needs a majority
            scheduler.awaitNodes(3);
        }

        long sum(java.util.function.ToLongFunction<org.gargamel.node.NodeStatistics> counter) {
            return nodes.stream()
                    .mapToLong(node -> counter.applyAsLong(node.statistics()))
                    .sum();
        }

        @Override
        public void close() {
            nodes.forEach(NodeServer::close);
            scheduler.close();
        }
    }
}
