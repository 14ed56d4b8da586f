package org.gargamel.scheduler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.scheduler.sites.SiteSettings;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three site schedulers on a real schedule log (in memory: a scheduler started again has no copy of it) with fake
 * nodes (docs/multisite.md, A site scheduler's failover). The first scheduler of each site is the member named after
 * its site; us's scheduler dies and a new one takes over without the log: it must not come back as member "us" (Raft
 * counts on a member never forgetting what it acknowledged), so it joins as a new member and replaces "us".
 */
@Tag("cluster")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SiteSchedulerReplacementTest {
    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final List<String> SITES = List.of("eu", "us", "ap");

    private final FakeNode.Bus bus = new FakeNode.Bus();
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void aSuccessorWithoutTheLogJoinsAsANewMemberReplacesItsPredecessorAndItsSiteGoesOn() throws Exception {
        SchedulerServer eu = siteScheduler("eu");
        SchedulerServer us = siteScheduler("us");
        SchedulerServer ap = siteScheduler("ap");
        for (String site : SITES) {
            node(site + "-1", site);
        }
        GargamelClient usClient = client("us");
        assertCommitted(usClient.submit(payment(1)).get(30, TimeUnit.SECONDS));
        for (SchedulerServer scheduler : List.of(eu, us, ap)) {
            assertEquals(
                    scheduler == eu ? "eu" : scheduler == us ? "us" : "ap",
                    scheduler.scheduleLogMember().orElseThrow(),
                    "a site's first scheduler is the member named after its site");
        }

        us.close();
        SchedulerServer successor = siteScheduler("us");
        Await.until(
                "us's successor to join the schedule log",
                WAIT,
                () -> successor.scheduleLogMember().isPresent());
        String member = successor.scheduleLogMember().orElseThrow();
        assertTrue(member.startsWith("us~"), "a successor without the log is a new member: " + member);
        Set<String> expected = Set.of("eu", "ap", member);
        for (SchedulerServer scheduler : List.of(eu, ap, successor)) {
            Await.until(
                    "the schedule log's members to be " + expected,
                    WAIT,
                    () -> new HashSet<>(scheduler.scheduleLogMembers()).equals(expected),
                    () -> scheduler.scheduleLogMembers().toString());
        }
        // The new member counts: with eu gone, ap and it are the majority that places us's next call.
        eu.close();
        assertCommitted(usClient.submit(payment(2)).get(60, TimeUnit.SECONDS));
        assertEquals(List.of(), bus.violations);
        assertEquals(0, bus.duplicates.get());
    }

    private static void assertCommitted(CallOutcome outcome) {
        assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
    }

    private SchedulerServer siteScheduler(String site) throws Exception {
        SchedulerServer scheduler = new SchedulerServer(new SchedulerConfig(
                        GroupSettings.inMemory(), Mode.GARGAMEL, Isolation.PSI, TpccRules.temporaryFile(), 100_000)
                .withSite(new SiteSettings(site, SITES, GroupSettings.inMemory(), "optimistic", Map.of())));
        started.add(scheduler);
        scheduler.start();
        return scheduler;
    }

    private void node(String name, String site) throws Exception {
        FakeNode node = new FakeNode(
                name, site, 2, GroupConfig.inMemory(), bus, channel -> {}, FakeNode.profile(Mode.GARGAMEL));
        started.add(node);
    }

    private GargamelClient client(String site) throws Exception {
        GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), ClientOptions.defaults(), site);
        started.add(client);
        client.awaitNodes(1, WAIT);
        return client;
    }

    /** A Payment of {@code amount} by customer 1 of warehouse 1, district 1 (us's calls conflict with each other). */
    private static ProcedureCall payment(int amount) {
        return ProcedureCall.of(
                "payment", 1, 1, 1, 1, 1, null, BigDecimal.valueOf(amount), LocalDateTime.of(2026, 1, 1, 10, 0));
    }
}
