package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.gargamel.classifier.WriteKey;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.scheduler.sites.Agreed.Verdict;
import org.gargamel.scheduler.sites.ProvisionalCall.Step;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The thesis's collision scenarios (Fig 4.2 collision, 4.3 bet, 4.4 collision on a bet, 4.6 cancel, kill and stall)
 * replayed on two sites, with the schedule log's order written out: each test says which entry each site reads when.
 * All calls write row A unless said otherwise, so all conflict.
 */
@Tag("unit")
class SiteAgreementTest {
    private static final List<WriteKey> A = List.of(key(1));
    private static final List<WriteKey> B = List.of(key(2));

    private final SiteAgreement s1 = new SiteAgreement("s1", AgreementMode.OPTIMISTIC);
    private final SiteAgreement s2 = new SiteAgreement("s2", AgreementMode.OPTIMISTIC);

    /** Fig 4.2: t2 (s1) and t3 (s2) are placed after t1 at once, each unaware of the other; the log puts t2 first. */
    @Test
    void theCallTheLogHoldsSecondCollidesAndRunsAgainAfterTheFirst() {
        ScheduleEntry t1 = s1.placeHome(1, A).entry();
        readEverywhere(t1);

        SiteAgreement.Placed t2 = s1.placeHome(2, A);
        SiteAgreement.Placed t3 = s2.placeHome(3, A);
        assertArrayEquals(new long[] {1}, t2.dependencies());
        assertArrayEquals(new long[] {1}, t3.dependencies());

        assertEquals(Verdict.CONFIRMED, only(s1.read(t2.entry())).verdict());
        assertEquals(Verdict.REMOTE, only(s2.read(t2.entry())).verdict());
        assertEquals(Verdict.REMOTE, only(s1.read(t3.entry())).verdict());
        Agreed loser = only(s2.read(t3.entry()));
        assertEquals(Verdict.COLLIDED, loser.verdict());
        assertArrayEquals(new long[] {2}, loser.dependencies(), "t3 runs again after the winner, t2");
        assertEquals(1, s2.counters().collided());
        assertEquals(0, s1.counters().collided());
    }

    /** Fig 4.6: what the loser's node does depends on how far it got: cancel, kill while running, kill after a stall. */
    @Test
    void aCollidedCallIsCancelledBeforeItStartsAndKilledOnceItHasRun() {
        ProvisionalCall waiting = new ProvisionalCall(3, new long[] {1}, false);
        assertEquals(Step.CANCELLED, waiting.replace(new long[] {2}));
        assertArrayEquals(new long[] {2}, waiting.dependencies());
        waiting.start();
        assertEquals(Step.COMMIT, waiting.ran(), "its place is final: the second run commits without waiting");

        ProvisionalCall running = new ProvisionalCall(3, new long[] {1}, false);
        running.start();
        assertEquals(Step.KILL, running.replace(new long[] {2}));
        assertEquals(Step.KILL, running.ran(), "the run that was killed is rolled back when it returns");
        assertEquals(ProvisionalCall.State.WAITING, running.state());
        running.start();
        assertEquals(Step.COMMIT, running.ran());
        running.committed();

        ProvisionalCall stalled = new ProvisionalCall(3, new long[] {1}, false);
        stalled.start();
        assertEquals(Step.STALL, stalled.ran(), "run before the log placed it: it must not commit yet");
        assertEquals(Step.KILL, stalled.replace(new long[] {2}));
        assertEquals(ProvisionalCall.State.WAITING, stalled.state());
    }

    /** A stall that ends well: the run waits for the log, then commits without running again. */
    @Test
    void aCallRunBeforeItsPlaceIsKnownCommitsWhenTheLogConfirmsIt() {
        ProvisionalCall call = new ProvisionalCall(2, new long[] {1}, false);
        call.start();
        assertEquals(Step.STALL, call.ran());
        assertEquals(Step.COMMIT, call.confirm());
        call.committed();
        assertThrows(IllegalStateException.class, () -> call.replace(new long[] {5}));

        ProvisionalCall early = new ProvisionalCall(4, new long[] {}, false);
        assertEquals(Step.NOTHING, early.confirm(), "confirmed before it ran: it commits as soon as it has run");
        early.start();
        assertEquals(Step.COMMIT, early.ran());
    }

    /**
     * Fig 4.3: s2 has read t2 (s1's) but not yet its own t3, which the log holds after t2, when t4 comes. t4 bets on
     * t3, the call the log will put last, and wins: it is confirmed, while t3 collides.
     */
    @Test
    void aCallPlacedWhileACollisionIsUndecidedBetsOnTheCallTheLogHoldsLast() {
        ScheduleEntry t1 = s1.placeHome(1, A).entry();
        readEverywhere(t1);
        ScheduleEntry t2 = s1.placeHome(2, A).entry();
        ScheduleEntry t3 = s2.placeHome(3, A).entry();
        s1.read(t2);
        s2.read(t2); // t2 comes before s2's pending t3: t3 is placed again on top of it in s2's view
        assertEquals(1, s2.counters().restacks());

        SiteAgreement.Placed t4 = s2.placeHome(4, A);
        assertArrayEquals(new long[] {3}, t4.dependencies(), "t4 bets on t3");

        assertEquals(Verdict.COLLIDED, only(s2.read(t3)).verdict());
        Agreed t4Agreed = only(s2.read(t4.entry()));
        assertEquals(Verdict.CONFIRMED, t4Agreed.verdict());
        assertArrayEquals(new long[] {3}, t4Agreed.dependencies());
    }

    /** Fig 4.4: s1 bets t4 on its own t2 while s2's t3 gets between them in the log: t4 collides too. */
    @Test
    void aBetLostToACallOfAnotherSiteCollides() {
        ScheduleEntry t1 = s1.placeHome(1, A).entry();
        readEverywhere(t1);
        ScheduleEntry t2 = s1.placeHome(2, A).entry();
        ScheduleEntry t3 = s2.placeHome(3, A).entry();
        s1.read(t2);
        SiteAgreement.Placed t4 = s1.placeHome(4, A);
        assertArrayEquals(new long[] {2}, t4.dependencies());

        assertEquals(Verdict.REMOTE, only(s1.read(t3)).verdict());
        Agreed lost = only(s1.read(t4.entry()));
        assertEquals(Verdict.COLLIDED, lost.verdict());
        assertArrayEquals(new long[] {3}, lost.dependencies());
    }

    @Test
    void callsOnOtherRowsNeverCollide() {
        ScheduleEntry t1 = s1.placeHome(1, A).entry();
        ScheduleEntry t2 = s2.placeHome(2, B).entry();
        readEverywhere(t2);
        assertEquals(Verdict.CONFIRMED, only(s1.read(t1)).verdict());
        assertEquals(Verdict.REMOTE, only(s2.read(t1)).verdict());
        assertEquals(0, s1.counters().restacks(), "t2 does not conflict with s1's pending t1");
    }

    @Test
    void pessimisticAgreementDispatchesOnlyWhatTheLogPlaced() {
        SiteAgreement site = new SiteAgreement("s1", AgreementMode.PESSIMISTIC);
        SiteAgreement.Placed t1 = site.placeHome(1, A);
        assertFalse(t1.dispatchNow());
        assertNull(t1.dependencies());
        SiteAgreement.Placed t2 = site.placeHome(2, A);
        assertEquals(Verdict.DISPATCH, only(site.read(t1.entry())).verdict());
        Agreed second = only(site.read(t2.entry()));
        assertEquals(Verdict.DISPATCH, second.verdict());
        assertArrayEquals(new long[] {1}, second.dependencies());
        assertEquals(0, site.counters().collided());
    }

    /** The log is a FIFO channel per site: a copy is read once, an entry ahead of a missing one waits for it. */
    @Test
    void eachSitesEntriesArePlacedOnceAndInTheOrderTheSitePlacedThem() {
        ScheduleEntry t1 = s1.placeHome(1, A).entry();
        ScheduleEntry t2 = s1.placeHome(2, A).entry();
        assertEquals(List.of(), s2.read(t2), "t2 overtook t1 (sent again after a leader died, say)");
        List<Agreed> both = s2.read(t1);
        assertEquals(List.of(1L, 2L), both.stream().map(Agreed::txn).toList());
        assertArrayEquals(new long[] {1}, both.get(1).dependencies());
        assertEquals(List.of(), s2.read(t1));
        assertEquals(List.of(), s2.read(t2));
        assertEquals(2, s2.counters().duplicates());
        assertEquals(1, s2.counters().heldBack());
    }

    /**
     * A call of another site that the log holds before a pending home call is not forgotten, though visible
     * everywhere, while that home call is pending: the home call may have run before it was applied.
     */
    @Test
    void aCallIsNotForgottenWhileAHomeCallPlacedBeforeItWasKnownIsPending() {
        SiteAgreement.Placed home = s1.placeHome(10, A);
        assertArrayEquals(new long[] {}, home.dependencies());
        ScheduleEntry remote = s2.placeHome(20, A).entry();
        s1.read(remote);
        s1.forget(20); // every replica applied it, after s1's call ran against the row without it
        assertEquals(2, s1.agreedSize() + s1.pending());
        Agreed verdict = only(s1.read(home.entry()));
        assertEquals(Verdict.COLLIDED, verdict.verdict());
        assertArrayEquals(new long[] {20}, verdict.dependencies());
        assertEquals(1, s1.agreedSize(), "forgotten once no home call placed before it is pending");

        SiteAgreement.Placed later = s1.placeHome(11, A);
        assertArrayEquals(
                new long[] {10}, later.dependencies(), "s1's own call, restacked after the one it collided with");
        assertThrows(IllegalStateException.class, () -> s1.forget(11));
    }

    @Test
    void aTransactionIdIsPlacedOnce() {
        s1.placeHome(1, A);
        assertThrows(IllegalArgumentException.class, () -> s1.placeHome(1, B));
        assertThrows(IllegalArgumentException.class, () -> new ScheduleEntry("s1", 0, 5, A));
    }

    /**
     * A site's scheduler fails over (docs/multisite.md): its successor numbers its entries from 1 again, in a new epoch,
     * and every reader takes them as a new stream, not as copies of the predecessor's; the predecessor's entries the
     * log commits later (appends in flight when it died) are still placed, and at the successor they are orphans.
     */
    @Test
    void aSuccessorsEntriesAreANewStreamAndItsPredecessorsAreOrphans() {
        long epoch1 = TransactionIds.firstOf(5);
        long epoch2 = TransactionIds.firstOf(9);
        ScheduleEntry first = s1.placeHome(epoch1, A).entry();
        ScheduleEntry second = s1.placeHome(epoch1 + 1, A).entry(); // in flight when s1's scheduler dies
        SiteAgreement successor = new SiteAgreement("s1", AgreementMode.OPTIMISTIC);
        ScheduleEntry next = successor.placeHome(epoch2, A).entry();
        assertEquals(1, next.sequence(), "a successor cannot know how far its predecessor got");

        for (SiteAgreement reader : List.of(s2, successor)) {
            Agreed predecessors = only(reader.read(first));
            assertEquals(reader == s2 ? Verdict.REMOTE : Verdict.ORPHANED, predecessors.verdict());
            Agreed successors = only(reader.read(next));
            assertArrayEquals(new long[] {epoch1}, successors.dependencies(), "not a copy of the first entry");
            Agreed late = only(reader.read(second));
            assertEquals(reader == s2 ? Verdict.REMOTE : Verdict.ORPHANED, late.verdict());
            assertArrayEquals(new long[] {epoch2}, late.dependencies(), "the log's order, whatever the epochs");
        }
        assertEquals(
                1,
                successor.counters().collided(),
                "its own call, placed before it had read its predecessor's, collided with it; the orphans count as none");
        assertEquals(0, s2.counters().duplicates());
    }

    private void readEverywhere(ScheduleEntry entry) {
        s1.read(entry);
        s2.read(entry);
    }

    private static Agreed only(List<Agreed> placed) {
        assertEquals(1, placed.size(), () -> "one call placed, got " + placed);
        return placed.get(0);
    }

    static WriteKey key(long row) {
        return new WriteKey(1, new long[] {row}, 1, null, List.of(row));
    }
}
