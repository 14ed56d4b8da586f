package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.gargamel.classifier.WriteKey;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.scheduler.sites.LogOrderTerms.Placed;
import org.gargamel.scheduler.sites.LogOrderTerms.Verdict;
import org.gargamel.scheduler.sites.ProvisionalCall.Step;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The thesis's collision scenarios (Fig 4.2 collision, 4.3 bet, 4.4 collision on a bet, 4.6 cancel, kill and stall)
 * replayed on two sites, with the schedule log's order written out: each test says which entry each site reads when.
 * All calls write row A unless said otherwise, so all conflict.
 */
@Tag("unit")
class LogOrderAgreementTest {
    private static final List<WriteKey> A = List.of(key(1));
    private static final List<WriteKey> B = List.of(key(2));

    private final LogOrderAgreement s1 = new LogOrderAgreement("s1", AgreementMode.OPTIMISTIC);
    private final LogOrderAgreement s2 = new LogOrderAgreement("s2", AgreementMode.OPTIMISTIC);

    /** Fig 4.2: t2 (s1) and t3 (s2) are placed after t1 at once, each unaware of the other; the log puts t2 first. */
    @Test
    void theCallTheLogHoldsSecondCollidesAndRunsAgainAfterTheFirst() {
        ScheduleEntry t1 = Placed.of(s1.placeHome(1, A)).entry();
        readEverywhere(t1);

        Placed t2 = Placed.of(s1.placeHome(2, A));
        Placed t3 = Placed.of(s2.placeHome(3, A));
        assertArrayEquals(new long[] {1}, t2.dependencies());
        assertArrayEquals(new long[] {1}, t3.dependencies());

        assertEquals(Verdict.CONFIRMED, Verdict.of(only(s1.read(t2.entry()))));
        assertEquals(Verdict.REMOTE, Verdict.of(only(s2.read(t2.entry()))));
        assertEquals(Verdict.REMOTE, Verdict.of(only(s1.read(t3.entry()))));
        Decision loser = only(s2.read(t3.entry()));
        assertEquals(Verdict.COLLIDED, Verdict.of(loser));
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
        ScheduleEntry t1 = Placed.of(s1.placeHome(1, A)).entry();
        readEverywhere(t1);
        ScheduleEntry t2 = Placed.of(s1.placeHome(2, A)).entry();
        ScheduleEntry t3 = Placed.of(s2.placeHome(3, A)).entry();
        s1.read(t2);
        s2.read(t2); // t2 comes before s2's pending t3: t3 is placed again on top of it in s2's view
        assertEquals(1, s2.counters().restacks());

        Placed t4 = Placed.of(s2.placeHome(4, A));
        assertArrayEquals(new long[] {3}, t4.dependencies(), "t4 bets on t3");

        assertEquals(Verdict.COLLIDED, Verdict.of(only(s2.read(t3))));
        Decision t4Agreed = only(s2.read(t4.entry()));
        assertEquals(Verdict.CONFIRMED, Verdict.of(t4Agreed));
        assertArrayEquals(new long[] {3}, t4Agreed.dependencies());
    }

    /** Fig 4.4: s1 bets t4 on its own t2 while s2's t3 gets between them in the log: t4 collides too. */
    @Test
    void aBetLostToACallOfAnotherSiteCollides() {
        ScheduleEntry t1 = Placed.of(s1.placeHome(1, A)).entry();
        readEverywhere(t1);
        ScheduleEntry t2 = Placed.of(s1.placeHome(2, A)).entry();
        ScheduleEntry t3 = Placed.of(s2.placeHome(3, A)).entry();
        s1.read(t2);
        Placed t4 = Placed.of(s1.placeHome(4, A));
        assertArrayEquals(new long[] {2}, t4.dependencies());

        assertEquals(Verdict.REMOTE, Verdict.of(only(s1.read(t3))));
        Decision lost = only(s1.read(t4.entry()));
        assertEquals(Verdict.COLLIDED, Verdict.of(lost));
        assertArrayEquals(new long[] {3}, lost.dependencies());
    }

    @Test
    void callsOnOtherRowsNeverCollide() {
        ScheduleEntry t1 = Placed.of(s1.placeHome(1, A)).entry();
        ScheduleEntry t2 = Placed.of(s2.placeHome(2, B)).entry();
        readEverywhere(t2);
        assertEquals(Verdict.CONFIRMED, Verdict.of(only(s1.read(t1))));
        assertEquals(Verdict.REMOTE, Verdict.of(only(s2.read(t1))));
        assertEquals(0, s1.counters().restacks(), "t2 does not conflict with s1's pending t1");
    }

    @Test
    void pessimisticAgreementDispatchesOnlyWhatTheLogPlaced() {
        LogOrderAgreement site = new LogOrderAgreement("s1", AgreementMode.PESSIMISTIC);
        Placed t1 = Placed.of(site.placeHome(1, A));
        assertFalse(t1.dispatchNow());
        assertNull(t1.dependencies());
        Placed t2 = Placed.of(site.placeHome(2, A));
        assertEquals(Verdict.DISPATCH, Verdict.of(only(site.read(t1.entry()))));
        Decision second = only(site.read(t2.entry()));
        assertEquals(Verdict.DISPATCH, Verdict.of(second));
        assertArrayEquals(new long[] {1}, second.dependencies());
        assertEquals(0, site.counters().collided());
    }

    /** The log is a FIFO channel per site: a copy is read once, an entry ahead of a missing one waits for it. */
    @Test
    void eachSitesEntriesArePlacedOnceAndInTheOrderTheSitePlacedThem() {
        ScheduleEntry t1 = Placed.of(s1.placeHome(1, A)).entry();
        ScheduleEntry t2 = Placed.of(s1.placeHome(2, A)).entry();
        assertEquals(List.of(), s2.read(t2), "t2 overtook t1 (sent again after a leader died, say)");
        List<Decision> both = s2.read(t1);
        assertEquals(List.of(1L, 2L), both.stream().map(Decision::txn).toList());
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
        Placed home = Placed.of(s1.placeHome(10, A));
        assertArrayEquals(new long[] {}, home.dependencies());
        ScheduleEntry remote = Placed.of(s2.placeHome(20, A)).entry();
        s1.read(remote);
        s1.forget(20); // every replica applied it, after s1's call ran against the row without it
        assertEquals(2, s1.agreedSize() + s1.pending());
        Decision verdict = only(s1.read(home.entry()));
        assertEquals(Verdict.COLLIDED, Verdict.of(verdict));
        assertArrayEquals(new long[] {20}, verdict.dependencies());
        assertEquals(1, s1.agreedSize(), "forgotten once no home call placed before it is pending");

        Placed later = Placed.of(s1.placeHome(11, A));
        assertArrayEquals(
                new long[] {10}, later.dependencies(), "s1's own call, restacked after the one it collided with");
        assertThrows(IllegalStateException.class, () -> s1.forget(11));
    }

    @Test
    void aTransactionIdIsPlacedOnce() {
        Placed.of(s1.placeHome(1, A));
        assertThrows(IllegalArgumentException.class, () -> Placed.of(s1.placeHome(1, B)));
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
        ScheduleEntry first = Placed.of(s1.placeHome(epoch1, A)).entry();
        ScheduleEntry second = Placed.of(s1.placeHome(epoch1 + 1, A)).entry(); // in flight when s1's scheduler dies
        LogOrderAgreement successor = new LogOrderAgreement("s1", AgreementMode.OPTIMISTIC);
        ScheduleEntry next = Placed.of(successor.placeHome(epoch2, A)).entry();
        assertEquals(1, next.sequence(), "a successor cannot know how far its predecessor got");

        for (LogOrderAgreement reader : List.of(s2, successor)) {
            Decision predecessors = only(reader.read(first));
            assertEquals(reader == s2 ? Verdict.REMOTE : Verdict.ORPHANED, Verdict.of(predecessors));
            Decision successors = only(reader.read(next));
            assertArrayEquals(new long[] {epoch1}, successors.dependencies(), "not a copy of the first entry");
            Decision late = only(reader.read(second));
            assertEquals(reader == s2 ? Verdict.REMOTE : Verdict.ORPHANED, Verdict.of(late));
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

    private static Decision only(List<Decision> placed) {
        assertEquals(1, placed.size(), () -> "one call placed, got " + placed);
        return placed.get(0);
    }

    static WriteKey key(long row) {
        return new WriteKey(1, new long[] {row}, 1, null, List.of(row));
    }
}
