package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.gargamel.classifier.WriteKey;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Site-owned conflict classes on two sites, eu owning rows below 100 and us the others, with the schedule log's order
 * written out: each test says which entry each site reads when.
 */
@Tag("unit")
class OwnedAgreementTest {
    private static final List<WriteKey> EU_ROW = List.of(LogOrderAgreementTest.key(1));
    private static final List<WriteKey> US_ROW = List.of(LogOrderAgreementTest.key(101));
    private static final List<WriteKey> BOTH = List.of(LogOrderAgreementTest.key(101), LogOrderAgreementTest.key(1));
    /** A key whose owning part is unknown: it may name a row of either site. */
    private static final List<WriteKey> ANY_ROW = List.of(new WriteKey(1, new long[] {0}, 0, null, List.of()));

    private static final OwnedAgreement.Ownership OWNERSHIP =
            key -> key.knownParts() == 0 ? Set.of("eu", "us") : Set.of(key.parts()[0] < 100 ? "eu" : "us");

    private final OwnedAgreement eu = new OwnedAgreement("eu", OWNERSHIP);
    private final OwnedAgreement us = new OwnedAgreement("us", OWNERSHIP);

    @Test
    void aCallOnItsOwnSitesRowsIsPlacedThereAloneAndNeverGoesToTheLog() {
        Home first = eu.placeHome(1, EU_ROW);
        Home second = eu.placeHome(2, EU_ROW);
        assertArrayEquals(
                new long[] {}, assertInstanceOf(Home.Local.class, first).dependencies());
        assertArrayEquals(
                new long[] {1}, assertInstanceOf(Home.Local.class, second).dependencies());
        assertInstanceOf(Home.Spanning.class, eu.placeHome(3, US_ROW), "another site's row goes to the log");
        assertInstanceOf(Home.Spanning.class, eu.placeHome(4, ANY_ROW), "a row of any site goes to the log");
        assertEquals(2, eu.counters().local());
        assertEquals(2, eu.counters().spanning());
        assertThrows(IllegalArgumentException.class, () -> eu.placeHome(2, EU_ROW));
    }

    /**
     * Abort-free: eu's t1 and us's t2 write one row at once, each site placing its own first (t2 after t1 at eu, t1
     * after t2 at us). Written out, the log holds e1, eu's own placement of t1, e2, us's of t2, then eu's of t2 and us's
     * of t1. The cycle is whole once the last is in: t1 (the lower id) runs first at eu, t2 after it at us, and neither
     * was dispatched before, so nothing is cancelled or killed. A late copy of a placement does not bring back a call
     * resolved and forgotten.
     */
    @Test
    void abortFreeSitesThatPlacedTwoCallsInOppositeOrdersRunThemInIdOrder() {
        AbortFreeAgreement euFree = new AbortFreeAgreement("eu", List.of("eu", "us"));
        AbortFreeAgreement usFree = new AbortFreeAgreement("us", List.of("eu", "us"));
        Home.Announced t1 = assertInstanceOf(Home.Announced.class, euFree.placeHome(1, EU_ROW));
        Home.Announced t2 = assertInstanceOf(Home.Announced.class, usFree.placeHome(2, EU_ROW));
        assertArrayEquals(new long[0], t1.own().dependencies());
        assertArrayEquals(new long[0], t2.own().dependencies(), "us had not heard of t1");

        List<Object> log = new java.util.ArrayList<>(List.of(t1.entry(), t1.own(), t2.entry(), t2.own()));
        List<Decision> euDecisions = readAll(euFree, log);
        List<Decision> usDecisions = readAll(usFree, log);
        SitePlacement euPlacesT2 =
                assertInstanceOf(Decision.Place.class, only(euDecisions)).placement();
        SitePlacement usPlacesT1 =
                assertInstanceOf(Decision.Place.class, only(usDecisions)).placement();
        assertArrayEquals(new long[] {1}, euPlacesT2.dependencies(), "eu placed t2 after its own t1");
        assertArrayEquals(new long[] {2}, usPlacesT1.dependencies(), "us placed t1 after its own t2: a cycle");

        assertTrue(euFree.read(euPlacesT2).isEmpty() && usFree.read(euPlacesT2).isEmpty(), "t2 reaches t1, not in");
        Decision.Dispatch euRuns = assertInstanceOf(Decision.Dispatch.class, only(euFree.read(usPlacesT1)));
        Decision.Dispatch usRuns = assertInstanceOf(Decision.Dispatch.class, only(usFree.read(usPlacesT1)));
        assertEquals(1, euRuns.txn());
        assertArrayEquals(new long[0], euRuns.dependencies(), "the lower id runs first");
        assertEquals(2, usRuns.txn());
        assertArrayEquals(new long[] {1}, usRuns.dependencies());
        assertTrue(
                euRuns.barrier() && usRuns.barrier(),
                "placed before their scheduler read its own entry back: a predecessor's call may be unread");
        assertEquals(1, euFree.counters().groups());
        assertEquals(0, euFree.pending() + usFree.pending());

        // eu has read its own entry back: its index holds every call the log held before, so no barrier.
        Home.Announced t3 = assertInstanceOf(Home.Announced.class, euFree.placeHome(3, EU_ROW));
        assertArrayEquals(new long[] {1, 2}, t3.own().dependencies(), "after every call eu holds on the row");
        readAll(euFree, List.of(t3.entry(), t3.own()));
        SitePlacement usPlacesT3 = assertInstanceOf(
                        Decision.Place.class, only(readAll(usFree, List.of(t3.entry(), t3.own()))))
                .placement();
        Decision.Dispatch euRunsT3 = assertInstanceOf(Decision.Dispatch.class, only(euFree.read(usPlacesT3)));
        assertEquals(3, euRunsT3.txn());
        assertTrue(!euRunsT3.barrier(), "no barrier once the scheduler has read its own entry back");

        usFree.read(usPlacesT3);
        for (AbortFreeAgreement site : List.of(euFree, usFree)) {
            site.forget(1);
            site.forget(2);
            site.forget(3);
            assertTrue(site.read(usPlacesT1).isEmpty(), "a late copy");
            assertEquals(0, site.graphSize(), site.site() + " brought a forgotten call back");
            assertEquals(0, site.size());
        }
    }

    /**
     * Abort-free: a site names every call it holds that a call conflicts with, not only the last writer, and a call that
     * leaves (forgotten) passes on what it named: a successor may hold the calls in another order than the one its
     * predecessor's placements name, and only direct names order two calls whoever placed them.
     */
    @Test
    void abortFreeSitesNameEveryConflictingCallTheyHoldEvenOnceOneBetweenLeft() {
        AbortFreeAgreement euFree = new AbortFreeAgreement("eu", List.of("eu", "us"));
        euFree.placeHome(1, EU_ROW);
        euFree.placeHome(2, EU_ROW);
        Home.Announced third = assertInstanceOf(Home.Announced.class, euFree.placeHome(3, EU_ROW));
        assertArrayEquals(new long[] {1, 2}, third.own().dependencies(), "both, not only the last writer 2");
        euFree.forget(2);
        Home.Announced fourth = assertInstanceOf(Home.Announced.class, euFree.placeHome(4, EU_ROW));
        assertArrayEquals(new long[] {1, 3}, fourth.own().dependencies(), "2 left; 3 passed on its name of 1");
    }

    private static List<Decision> readAll(Agreement site, List<Object> log) {
        List<Decision> decisions = new java.util.ArrayList<>();
        for (Object entry : log) {
            decisions.addAll(entry instanceof ScheduleEntry call ? site.read(call) : site.read((SitePlacement) entry));
        }
        return decisions;
    }

    /**
     * us sends t3 on a row of each site while eu runs t1 and t2 on its row; eu reads t3 between them. t3 runs after
     * t1 (eu's word, in its placement) and before t2's successor t4, which eu places after it.
     */
    @Test
    void aSpanningCallIsDispatchedOnceEveryOwnerPlacedItAfterTheirOwnCalls() {
        us.placeHome(10, US_ROW); // us's own call on its row, before t3
        eu.placeHome(1, EU_ROW);
        ScheduleEntry t3 =
                assertInstanceOf(Home.Spanning.class, us.placeHome(3, BOTH)).entry();

        Decision.Place euPlaces = assertInstanceOf(Decision.Place.class, only(eu.read(t3)));
        assertArrayEquals(new long[] {1}, euPlaces.placement().dependencies());
        assertEquals("eu", euPlaces.placement().owner());
        assertArrayEquals(
                new long[] {3},
                assertInstanceOf(Home.Local.class, eu.placeHome(4, EU_ROW)).dependencies(),
                "eu's later call on its row runs after t3");

        assertTrue(us.read(t3).isEmpty(), "us waits for eu's placement");
        assertEquals(1, us.pending());
        assertTrue(eu.read(euPlaces.placement()).isEmpty(), "eu has nothing to dispatch for us's call");
        Decision.Dispatch dispatch = assertInstanceOf(Decision.Dispatch.class, only(us.read(euPlaces.placement())));
        assertEquals(3, dispatch.txn());
        assertArrayEquals(new long[] {1, 10}, dispatch.dependencies(), "after us's t10 and eu's t1");
        assertEquals(0, us.pending());
        assertTrue(us.read(euPlaces.placement()).isEmpty(), "a copy of the placement changes nothing");
        assertTrue(us.read(t3).isEmpty(), "a copy of the entry changes nothing");
        assertEquals(1, us.counters().duplicates());
    }

    @Test
    void aCallTheSiteForgotIsNoLongerNamed() {
        eu.placeHome(1, EU_ROW);
        eu.forget(1);
        assertEquals(0, eu.size());
        ScheduleEntry t3 =
                assertInstanceOf(Home.Spanning.class, us.placeHome(3, BOTH)).entry();
        Decision.Place euPlaces = assertInstanceOf(Decision.Place.class, only(eu.read(t3)));
        assertArrayEquals(new long[] {}, euPlaces.placement().dependencies(), "t1 is covered by t3's barrier instead");
        eu.forget(999); // unknown: ignored
        assertEquals(1, eu.size());
    }

    @Test
    void aSiteThatOwnsNoRowOfAnotherSitesCallLeavesItAlone() {
        OwnedAgreement ap = new OwnedAgreement("ap", OWNERSHIP);
        ScheduleEntry t3 =
                assertInstanceOf(Home.Spanning.class, us.placeHome(3, BOTH)).entry();
        assertTrue(ap.read(t3).isEmpty());
        assertEquals(0, ap.size());
        assertEquals(0, ap.counters().placedForOthers());
    }

    /** A spanning call an earlier scheduler of us appended: once every owner placed it, it is us's orphan to settle. */
    @Test
    void aSpanningCallOfAnEarlierSchedulerOfTheSiteIsAnOrphan() {
        OwnedAgreement earlier = new OwnedAgreement("us", OWNERSHIP);
        ScheduleEntry t3 = assertInstanceOf(Home.Spanning.class, earlier.placeHome(3, BOTH))
                .entry();
        Decision.Place euPlaces = assertInstanceOf(Decision.Place.class, only(eu.read(t3)));
        assertTrue(us.read(t3).isEmpty());
        Decision.Orphaned orphan = assertInstanceOf(Decision.Orphaned.class, only(us.read(euPlaces.placement())));
        assertEquals(3, orphan.txn());
    }

    private static <T> T only(List<T> decisions) {
        assertEquals(1, decisions.size(), decisions::toString);
        return decisions.get(0);
    }
}
