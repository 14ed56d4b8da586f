package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LogUnavailableException;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.group.SiteDelay;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.scheduler.sites.LogOrderTerms.Placed;
import org.gargamel.scheduler.sites.LogOrderTerms.Verdict;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schedule log among three sites' schedulers, on real JGroups channels (in memory) and jgroups-raft: every site
 * reads the same order, the loss of one site loses nothing and the others go on, a site alone appends nothing, a
 * wide-area delay is paid per append, and two sites placing conflicting TPC-C calls at once agree on which one
 * collided.
 */
@Tag("cluster")
class ScheduleLogTest {
    private static final List<String> SITES = List.of("eu", "us", "ap");
    /** The schedule log's members are named after their sites. */
    private static final Map<String, String> SITE_OF_MEMBER = Map.of("eu", "eu", "us", "us", "ap", "ap");

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final RaftLog.Patience IMPATIENT =
            new RaftLog.Patience(Duration.ofMillis(500), Duration.ofMillis(300), Duration.ofSeconds(2));
    private static final ClassifierRules RULES = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
    private static final LocalDateTime NOW = LocalDateTime.of(2026, 1, 1, 10, 0);

    private final Map<String, ScheduleLog> logs = new LinkedHashMap<>();
    private final Map<String, List<ScheduleCall>> read = new LinkedHashMap<>();

    @AfterEach
    void close() {
        logs.values().forEach(ScheduleLog::close);
    }

    @Test
    void everySiteReadsEveryCallInOneOrder() throws Exception {
        start(Duration.ZERO, RaftLog.Patience.DEFAULT);
        List<CompletableFuture<Void>> appended = new ArrayList<>();
        for (int sequence = 1; sequence <= 40; sequence++) {
            for (String site : SITES) {
                appended.add(logs.get(site).append(entry(site, sequence)));
            }
        }
        CompletableFuture.allOf(appended.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        awaitRead(120);
        for (String site : SITES) {
            assertEquals(read("eu"), read(site), site + " read another order");
        }
        Set<String> distinct = new HashSet<>();
        read("eu").forEach(call -> distinct.add(call.site() + "#" + call.sequence()));
        assertEquals(120, distinct.size(), "every call of every site, each once");
    }

    @Test
    void losingOneSiteLosesNoEntryAndTheOthersGoOn() throws Exception {
        start(Duration.ZERO, RaftLog.Patience.DEFAULT);
        logs.get("eu").append(entry("eu", 1)).get(30, TimeUnit.SECONDS);
        String leader =
                SITES.stream().filter(s -> logs.get(s).isLeader()).findFirst().orElseThrow();
        logs.remove(leader).close(); // the leader: the others must elect another
        List<String> left = new ArrayList<>(logs.keySet());
        logs.get(left.get(0)).append(entry(left.get(0), 1)).get(30, TimeUnit.SECONDS);
        logs.get(left.get(1)).append(entry(left.get(1), 1)).get(30, TimeUnit.SECONDS);
        for (String site : left) {
            Await.until(site + " to read three entries", WAIT, () -> read(site).size() >= 3, () -> read(site));
            assertEquals(
                    "eu#1", read(site).get(0).site() + "#" + read(site).get(0).sequence());
        }
        assertEquals(read(left.get(0)), read(left.get(1)));
    }

    /**
     * A site's scheduler fails over (docs/multisite.md): its successor joins under the site's name with an empty log
     * of its own, the leader's or a follower's, and must read every entry from the first, in the others' order.
     */
    @Test
    void aSiteThatJoinsAgainWithAnEmptyLogReadsTheWholeLog() throws Exception {
        start(Duration.ZERO, RaftLog.Patience.DEFAULT);
        for (int round = 0; round < 2; round++) {
            List<CompletableFuture<Void>> appended = new ArrayList<>();
            for (int sequence = 1; sequence <= 20; sequence++) {
                appended.add(logs.get("eu").append(entry("eu", round * 20 + sequence)));
            }
            CompletableFuture.allOf(appended.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            // First the leader (unless eu, which appends: then us), then a follower other than eu.
            boolean wantLeader = round == 0;
            String replaced = SITES.stream()
                    .filter(s -> !s.equals("eu") && logs.get(s).isLeader() == wantLeader)
                    .findFirst()
                    .orElse("us");
            logs.remove(replaced).close();
            String survivor =
                    SITES.stream().filter(s -> logs.containsKey(s)).findFirst().orElseThrow();
            List<ScheduleCall> before = read(survivor);
            ScheduleLog again = open(replaced, SITES, Duration.ZERO, RaftLog.Patience.DEFAULT, (site, call) -> {});
            logs.put(replaced, again);
            again.connect();
            logs.get("eu").append(entry("eu", 100 + round)).get(30, TimeUnit.SECONDS);
            String site = replaced;
            Await.until(
                    site + " to read the whole log again",
                    WAIT,
                    () -> read(site).size() >= before.size() + 1,
                    () -> read(site).size() + " of " + (before.size() + 1));
            assertEquals(
                    read(survivor).subList(0, before.size() + 1), read(site).subList(0, before.size() + 1));
        }
    }

    /**
     * Two sites, and the leader's scheduler dies: the other cannot go on alone; the successor joins with an empty log,
     * the survivor must be elected (its log is the longer), and the successor must read the whole log.
     */
    @Test
    void twoSitesTheLeaderReplacedWithAnEmptyLogLosesNothing() throws Exception {
        List<String> two = List.of("eu", "us");
        for (String site : two) {
            logs.put(site, open(site, two, Duration.ZERO, RaftLog.Patience.DEFAULT, (s, call) -> {}));
        }
        for (String site : two) {
            logs.get(site).connect();
        }
        List<CompletableFuture<Void>> appended = new ArrayList<>();
        for (int sequence = 1; sequence <= 20; sequence++) {
            appended.add(logs.get("us").append(entry("us", sequence)));
        }
        CompletableFuture.allOf(appended.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        String leader =
                two.stream().filter(s -> logs.get(s).isLeader()).findFirst().orElseThrow();
        String survivor = leader.equals("eu") ? "us" : "eu";
        logs.remove(leader).close();
        // An append waits for a leader (RaftLog.append): on its own thread, while the survivor has no majority.
        ScheduleLog survivingLog = logs.get(survivor);
        CompletableFuture<CompletableFuture<Void>> sent = new CompletableFuture<>();
        Thread appender = new Thread(() -> sent.complete(survivingLog.append(entry(survivor, 100))));
        appender.start();
        Await.until(
                "the survivor's append to wait for a leader",
                WAIT,
                () -> !sent.isDone() && appender.getState() == Thread.State.TIMED_WAITING);
        List<ScheduleCall> before = read(survivor);
        ScheduleLog again = open(leader, two, Duration.ZERO, RaftLog.Patience.DEFAULT, (s, call) -> {});
        logs.put(leader, again);
        again.connect();
        sent.get(30, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS);
        logs.get(leader).append(entry(leader, 200)).get(30, TimeUnit.SECONDS);
        Await.until(
                leader + " to read the whole log",
                WAIT,
                () -> read(leader).size() >= before.size() + 2,
                () -> read(leader) + " against " + read(survivor));
        Await.until(
                survivor + " to read the new entries",
                WAIT,
                () -> read(survivor).size() >= before.size() + 2);
        assertEquals(read(survivor).subList(0, before.size() + 2), read(leader).subList(0, before.size() + 2));
        assertEquals(before, read(survivor).subList(0, before.size()), "nothing the survivor read was taken back");
    }

    /**
     * Raft counts on a member that comes back still holding its log: the case an empty log cannot survive. ap is down
     * while eu and us commit an entry; us restarts, eu dies, ap comes back. us and ap are a majority, and the entry
     * must be there: us kept it on disk ({@code site.logDir}). With us's log in memory the two elect a leader
     * without it and the entry, committed and read, is gone (checked: the test fails then).
     */
    @Test
    void aMemberThatComesBackWithItsLogOnDiskKeepsWhatItCommitted(@TempDir Path disks) throws Exception {
        for (String site : SITES) {
            logs.put(site, open(site, SITES, disks.resolve(site), (s, call) -> {}));
        }
        for (ScheduleLog log : logs.values()) {
            log.connect();
        }
        logs.get("eu").append(entry("eu", 1)).get(30, TimeUnit.SECONDS);
        awaitRead(1);
        logs.remove("ap").close();
        logs.get("eu").append(entry("eu", 2)).get(30, TimeUnit.SECONDS); // on eu and us only
        Await.until("us to read eu#2", WAIT, () -> read("us").size() >= 2, () -> read("us"));
        logs.remove("us").close();
        logs.remove("eu").close(); // the only other member holding eu#2
        for (String site : List.of("us", "ap")) {
            ScheduleLog again = open(site, SITES, disks.resolve(site), (s, call) -> {});
            logs.put(site, again);
            again.connect();
        }
        logs.get("ap").append(entry("ap", 1)).get(30, TimeUnit.SECONDS);
        List<String> expected = List.of("eu#1", "eu#2", "ap#1");
        for (String site : List.of("us", "ap")) {
            Await.until(site + " to read three entries", WAIT, () -> read(site).size() >= 3, () -> read(site));
            assertEquals(
                    expected,
                    read(site).stream().map(c -> c.site() + "#" + c.sequence()).toList(),
                    site);
        }
    }

    /**
     * With three sites, a site's scheduler that comes back without its log joins as a new member (a learner: it never
     * voted, so it cannot vote against what it forgot) and replaces the site's member, one change at a time. Then it
     * is a full member: with another site's member gone too, it and the third make the majority that commits, holding
     * the whole log. Were it still a learner, the last append would find no majority.
     */
    @Test
    void aSiteMemberThatComesBackWithoutItsLogJoinsAsANewMemberAndReplacesTheOld() throws Exception {
        start(Duration.ZERO, RaftLog.Patience.DEFAULT);
        List<CompletableFuture<Void>> appended = new ArrayList<>();
        for (int sequence = 1; sequence <= 20; sequence++) {
            appended.add(logs.get("eu").append(entry("eu", sequence)));
        }
        CompletableFuture.allOf(appended.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        // The leader if it is not eu (which appends), else us: the harder case is the leader's site.
        String replaced = logs.get("ap").isLeader() ? "ap" : "us";
        logs.remove(replaced).close();
        String member = ScheduleLog.newMember(replaced, 7);
        ScheduleLog again = open(replaced, member, SITES, Duration.ZERO, IMPATIENT, (site, call) -> {}, null);
        logs.put(replaced, again);
        again.connect();
        CompletableFuture<Void> replacing = CompletableFuture.runAsync(() -> {
            try {
                again.replacePredecessors(Duration.ofSeconds(5), () -> true);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        replacing.get(60, TimeUnit.SECONDS);
        Set<String> expected = new HashSet<>(SITES);
        expected.remove(replaced);
        expected.add(member);
        for (String site : SITES) {
            Await.until(
                    site + " to see the members " + expected,
                    WAIT,
                    () -> new HashSet<>(logs.get(site).members()).equals(expected),
                    () -> logs.get(site).members().toString());
        }
        String third = replaced.equals("ap") ? "us" : "ap";
        logs.remove("eu").close();
        logs.get(third).append(entry(third, 1)).get(30, TimeUnit.SECONDS);
        Await.until(
                replaced + " to read all 21 entries",
                WAIT,
                () -> read(replaced).size() >= 21,
                () -> read(replaced).toString());
        assertEquals(read(third), read(replaced), "the new member holds the log in the order the others read it");
        assertEquals(21, read(third).size());
    }

    @Test
    void aSiteWithoutAMajorityAppendsNothing() throws Exception {
        start(Duration.ZERO, IMPATIENT);
        logs.get("eu").append(entry("eu", 1)).get(30, TimeUnit.SECONDS);
        logs.remove("us").close();
        logs.remove("ap").close();
        ExecutionException failed = assertThrows(
                ExecutionException.class,
                () -> logs.get("eu").append(entry("eu", 2)).get(30, TimeUnit.SECONDS));
        assertInstanceOf(LogUnavailableException.class, failed.getCause());
        assertTrue(
                failed.getCause().getMessage().contains("schedule log"),
                failed.getCause().getMessage());
        assertEquals(1, read("eu").size(), "the second entry was never committed");
    }

    /** Every link between two sites delays 40 ms: an append costs at least a round trip from the leader (80 ms). */
    @Test
    void aWideAreaDelayIsPaidByEveryAppend() throws Exception {
        start(Duration.ofMillis(40), RaftLog.Patience.DEFAULT);
        logs.get("eu").append(entry("eu", 1)).get(30, TimeUnit.SECONDS); // the leader is known from here on
        String leader =
                SITES.stream().filter(s -> logs.get(s).isLeader()).findFirst().orElseThrow();
        long started = System.nanoTime();
        logs.get(leader).append(entry(leader, 2)).get(30, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(millis >= 80, "committed after " + millis + " ms, under the 80 ms round trip");
    }

    /**
     * Fig 4.2 over the real log: eu and us place a New-Order for the same district at once, each unaware of the other.
     * Every site reads both in one order; the home site of the second one (and only it) finds the collision, and it
     * runs again after the first.
     */
    @Test
    void twoSitesPlacingConflictingCallsAtOnceAgreeOnWhichCollided() throws Exception {
        Map<String, LogOrderAgreement> agreements = new LinkedHashMap<>();
        Map<String, List<Decision>> verdicts = new LinkedHashMap<>();
        for (String site : SITES) {
            agreements.put(site, new LogOrderAgreement(site, AgreementMode.OPTIMISTIC));
            verdicts.put(site, new ArrayList<>());
        }
        start(Duration.ofMillis(20), RaftLog.Patience.DEFAULT, (site, call) -> {
            LogOrderAgreement agreement = agreements.get(site);
            synchronized (agreement) {
                List<Decision> placed =
                        agreement.read(new ScheduleEntry(call.site(), call.sequence(), call.txn(), keys(call.call())));
                synchronized (verdicts) {
                    verdicts.get(site).addAll(placed);
                }
            }
        });
        ProcedureCall euOrder = newOrder(1, 3, 11);
        ProcedureCall usOrder = newOrder(1, 3, 12);
        Placed eu;
        Placed us;
        synchronized (agreements.get("eu")) {
            eu = Placed.of(agreements.get("eu").placeHome(101, keys(euOrder)));
        }
        synchronized (agreements.get("us")) {
            us = Placed.of(agreements.get("us").placeHome(201, keys(usOrder)));
        }
        assertEquals(0, eu.dependencies().length);
        assertEquals(0, us.dependencies().length);
        CompletableFuture.allOf(
                        logs.get("eu").append(new ScheduleCall("eu", 1, 101, euOrder)),
                        logs.get("us").append(new ScheduleCall("us", 1, 201, usOrder)))
                .get(30, TimeUnit.SECONDS);
        for (String site : SITES) {
            Await.until(
                    site + " to place both",
                    WAIT,
                    () -> verdictsOf(verdicts, site).size() == 2);
        }
        List<Long> order =
                verdictsOf(verdicts, "ap").stream().map(Decision::txn).toList();
        for (String site : SITES) {
            assertEquals(
                    order,
                    verdictsOf(verdicts, site).stream().map(Decision::txn).toList(),
                    site);
        }
        long first = order.get(0);
        long second = order.get(1);
        String loserSite = second == 101 ? "eu" : "us";
        String winnerSite = first == 101 ? "eu" : "us";
        Decision lost = verdictsOf(verdicts, loserSite).get(1);
        assertEquals(Verdict.COLLIDED, Verdict.of(lost));
        assertEquals(List.of(first), toList(lost.dependencies()), "it runs again after the winner");
        assertEquals(
                Verdict.CONFIRMED, Verdict.of(verdictsOf(verdicts, winnerSite).get(0)));
        assertTrue(verdictsOf(verdicts, "ap").stream().allMatch(a -> Verdict.of(a) == Verdict.REMOTE));
        assertEquals(1, agreements.get(loserSite).counters().collided());
        assertEquals(0, agreements.get(winnerSite).counters().collided());
    }

    private interface Reader {
        void read(String site, ScheduleCall call);
    }

    private void start(Duration delay, RaftLog.Patience patience) throws Exception {
        start(delay, patience, (site, call) -> {});
    }

    private void start(Duration delay, RaftLog.Patience patience, Reader also) throws Exception {
        for (String site : SITES) {
            logs.put(site, open(site, SITES, delay, patience, also));
        }
        for (ScheduleLog log : logs.values()) {
            log.connect();
        }
    }

    /** Site {@code site}'s member of the log, with an empty log of its own and nothing read yet; not connected. */
    private ScheduleLog open(String site, List<String> sites, Duration delay, RaftLog.Patience patience, Reader also)
            throws Exception {
        return open(site, sites, delay, patience, also, null);
    }

    /** As above, its log kept in {@code logDir}: started again there, it comes back with what it held. */
    private ScheduleLog open(String site, List<String> sites, Path logDir, Reader also) throws Exception {
        return open(site, sites, Duration.ZERO, RaftLog.Patience.DEFAULT, also, logDir);
    }

    private ScheduleLog open(
            String site, List<String> sites, Duration delay, RaftLog.Patience patience, Reader also, Path logDir)
            throws Exception {
        return open(site, site, sites, delay, patience, also, logDir);
    }

    /** Site {@code site}'s member with Raft id {@code member}: the site's name, or a new member that joins. */
    private ScheduleLog open(
            String site,
            String member,
            List<String> sites,
            Duration delay,
            RaftLog.Patience patience,
            Reader also,
            Path logDir)
            throws Exception {
        synchronized (read) {
            read.put(site, new ArrayList<>());
        }
        return new ScheduleLog(
                site,
                member,
                Channels.scheduleLog(
                        GroupConfig.inMemory(),
                        site,
                        new RaftSettings(member, sites, logDir, false, !sites.contains(member)),
                        SiteDelay.Links.uniform(SITE_OF_MEMBER, delay)),
                call -> {
                    synchronized (read) {
                        read.get(site).add(call);
                    }
                    also.read(site, call);
                },
                patience);
    }

    private List<ScheduleCall> read(String site) {
        synchronized (read) {
            return List.copyOf(read.get(site));
        }
    }

    private void awaitRead(int entries) throws InterruptedException {
        for (String site : SITES) {
            Await.until(
                    site + " to read " + entries + " entries",
                    WAIT,
                    () -> read(site).size() >= entries);
        }
    }

    private static List<Decision> verdictsOf(Map<String, List<Decision>> verdicts, String site) {
        synchronized (verdicts) {
            return List.copyOf(verdicts.get(site));
        }
    }

    private static ScheduleCall entry(String site, long sequence) {
        return new ScheduleCall(
                site, sequence, SITES.indexOf(site) * 1000L + sequence, ProcedureCall.of("delivery", 1, 1, NOW));
    }

    private static ProcedureCall newOrder(int w, int d, int item) {
        return ProcedureCall.of("new_order", w, d, 1, List.of(item), List.of(w), List.of(1), NOW);
    }

    private static List<org.gargamel.classifier.WriteKey> keys(ProcedureCall call) {
        return RULES.conflictKeys(call, Isolation.PSI);
    }

    private static List<Long> toList(long[] ids) {
        List<Long> list = new ArrayList<>();
        for (long id : ids) {
            list.add(id);
        }
        return list;
    }
}
