package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.List;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.scheduler.core.RejectedCallException;
import org.gargamel.scheduler.core.Scheduler;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two sites' schedulers, each its core scheduler (one node, two workers) and its agreement, fed the same schedule log
 * by hand: what each sends its node when, with TPC-C calls. eu's transaction ids start at 1 << 32, us's at 2 << 32.
 */
@Tag("unit")
class SiteSchedulerTest {
    private static final ClassifierRules RULES = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
    private static final LocalDateTime NOW = LocalDateTime.of(2026, 1, 1, 10, 0);

    private final SiteScheduler eu = site("eu", 1, AgreementMode.OPTIMISTIC);
    private final SiteScheduler us = site("us", 2, AgreementMode.OPTIMISTIC);

    @Test
    void conflictingCallsOfTwoSitesRunAtOnceAndTheOneTheLogHoldsSecondRunsAgainAfterTheFirst() {
        SiteScheduler.HomeCall euOrder = eu.place(newOrder(3, 11), 0);
        SiteScheduler.HomeCall usOrder = us.place(newOrder(3, 12), 0);
        assertTrue(euOrder.dispatchNow() && euOrder.provisional());
        assertTrue(usOrder.dispatchNow() && usOrder.provisional());
        assertArrayEquals(new long[0], euOrder.placement().backDependencies());
        assertArrayEquals(new long[0], usOrder.placement().backDependencies());

        // The log holds eu's entry first; both sites read both.
        List<Decision> atEu = concat(eu.read(euOrder.entry()), eu.read(usOrder.entry()));
        List<Decision> atUs = concat(us.read(euOrder.entry()), us.read(usOrder.entry()));
        Decision.Agreed confirmed = assertInstanceOf(Decision.Agreed.class, only(home(atEu)));
        assertFalse(confirmed.collided());
        assertEquals(euOrder.placement().txn(), confirmed.txn());
        assertEquals(List.of(usOrder.placement().txn()), remote(atEu), "us's call placed at eu");
        assertEquals(List.of(euOrder.placement().txn()), remote(atUs), "eu's call placed at us");
        Decision.Agreed collided = assertInstanceOf(Decision.Agreed.class, only(home(atUs)));
        assertTrue(collided.collided());
        assertEquals(usOrder.placement().txn(), collided.txn());
        assertArrayEquals(new long[] {euOrder.placement().txn()}, collided.dependencies());
    }

    @Test
    void aSitesOwnChainWaitsForItsCoreDependenciesAndIsConfirmedAsPlaced() {
        SiteScheduler.HomeCall first = eu.place(newOrder(3, 11), 0);
        SiteScheduler.HomeCall second = eu.place(newOrder(3, 12), 0);
        assertArrayEquals(
                new long[] {first.placement().txn()}, second.placement().backDependencies());
        assertEquals(first.placement().worker(), second.placement().worker(), "a chain stays on its worker");
        assertEquals(2, second.entry().sequence());
        List<Decision> decisions = eu.read(first.entry());
        decisions = concat(decisions, eu.read(second.entry()));
        assertEquals(2, decisions.size());
        Decision.Agreed last = assertInstanceOf(Decision.Agreed.class, decisions.get(1));
        assertFalse(last.collided());
        assertArrayEquals(new long[] {first.placement().txn()}, last.dependencies());
    }

    @Test
    void readOnlyCallsNeverEnterTheSchedule() {
        SiteScheduler.HomeCall read = eu.place(ProcedureCall.of("order_status", 1, 3, 7, null), 0);
        assertTrue(read.placement().readOnly());
        assertTrue(read.toLog().isEmpty(), "nothing to the schedule log");
        assertTrue(read.dispatchNow());
        assertFalse(read.provisional());
        assertEquals(0, eu.pending());
    }

    @Test
    void pessimisticSitesDispatchOnlyWhatTheLogPlaced() {
        SiteScheduler site = site("eu", 1, AgreementMode.PESSIMISTIC);
        SiteScheduler.HomeCall call = site.place(newOrder(3, 11), 0);
        assertFalse(call.dispatchNow());
        Decision.Dispatch dispatch = assertInstanceOf(Decision.Dispatch.class, only(site.read(call.entry())));
        assertEquals(call.placement().txn(), dispatch.txn());
        assertArrayEquals(new long[0], dispatch.dependencies());
        assertFalse(dispatch.barrier());
    }

    @Test
    void aBadCallIsRejectedAndAppendsNothing() {
        RejectedCallException rejected =
                assertThrows(RejectedCallException.class, () -> eu.place(ProcedureCall.of("delivery", 1), 0));
        assertTrue(rejected.getMessage().contains("delivery"), rejected.getMessage());
        assertEquals(0, eu.pending());
    }

    @Test
    void onlyGargamelModeWithPsiSchedulesAcrossSites() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new SiteScheduler(
                        new Scheduler(RULES, Mode.ROUND_ROBIN, Isolation.PSI),
                        LogOrderAgreement.optimistic("eu"),
                        RULES));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SiteScheduler(
                        new Scheduler(RULES, Mode.GARGAMEL, Isolation.SI), LogOrderAgreement.optimistic("eu"), RULES));
    }

    private static SiteScheduler site(String name, long idSpace, AgreementMode mode) {
        Scheduler core = new Scheduler(RULES, Mode.GARGAMEL, Isolation.PSI);
        core.startTransactionIdsAt(idSpace << 32 | 1);
        core.addNode(name + "-1", 2);
        return new SiteScheduler(core, new LogOrderAgreement(name, mode), RULES);
    }

    /**
     * With site-owned classes calls on one row are ordered even when PSI would let them run at once (a New-Order and a
     * Payment write different columns of a district; two Payments' year-to-date additions commute): with a write-set
     * log per site a node holds its call's row locks until its site's log delivers the write-set, and a column-disjoint
     * write-set before it in the log waited on them for ever. Without row granularity each Payment here follows
     * nothing.
     */
    @Test
    void withSiteOwnedClassesCallsOnOneRowAreOrderedWhateverColumnsTheyWrite() {
        Scheduler core = new Scheduler(RULES, Mode.GARGAMEL, Isolation.PSI);
        core.startTransactionIdsAt(1L << 32 | 1);
        core.addNode("eu-1", 2);
        SiteScheduler eu = new SiteScheduler(core, new OwnedAgreement("eu", key -> java.util.Set.of("eu")), RULES);
        SiteScheduler.HomeCall order = eu.place(newOrder(3, 11), 0);
        SiteScheduler.HomeCall payment = eu.place(payment(3, 5), 0);
        SiteScheduler.HomeCall secondPayment = eu.place(payment(3, 6), 0);
        assertArrayEquals(
                new long[] {order.placement().txn()},
                payment.placement().backDependencies(),
                "the Payment's d_ytd and the New-Order's d_next_o_id are one district row");
        assertArrayEquals(
                new long[] {payment.placement().txn()},
                secondPayment.placement().backDependencies(),
                "two additions to one row's year-to-date are ordered too");
    }

    private static ProcedureCall payment(int district, int customer) {
        return ProcedureCall.of(
                "payment", 1, district, 1, district, customer, null, new java.math.BigDecimal("5.00"), NOW);
    }

    private static ProcedureCall newOrder(int district, int item) {
        return ProcedureCall.of("new_order", 1, district, 1, List.of(item), List.of(1), List.of(1), NOW);
    }

    private static Decision only(List<Decision> decisions) {
        assertEquals(1, decisions.size(), () -> "one decision, got " + decisions);
        return decisions.get(0);
    }

    /** The decisions about the site's own calls (another site's calls are only followed). */
    private static List<Decision> home(List<Decision> decisions) {
        return decisions.stream()
                .filter(decision -> !(decision instanceof Decision.Remote))
                .toList();
    }

    /** The other sites' calls among {@code decisions}. */
    private static List<Long> remote(List<Decision> decisions) {
        return decisions.stream()
                .filter(decision -> decision instanceof Decision.Remote)
                .map(Decision::txn)
                .toList();
    }

    private static List<Decision> concat(List<Decision> a, List<Decision> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
