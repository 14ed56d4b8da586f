package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The abort-free agreement's dependency graph: commits, groups, their order, forgetting. */
@Tag("unit")
class DependencyGraphTest {
    private final DependencyGraph graph = new DependencyGraph(Set.of("eu", "us"));

    @Test
    void twoSitesThatPlacedTwoCallsInOppositeOrdersRunThemInIdOrderWithoutAKill() {
        // eu's call 1 and us's call 2 write one row; each site placed its own first, then the other's after it.
        assertFalse(graph.placed("eu", 1, new long[0]));
        assertFalse(graph.placed("us", 2, new long[0]));
        assertTrue(graph.placed("eu", 2, new long[] {1}));
        assertEquals(List.of(), graph.resolve(), "call 2 reaches call 1, whose us placement is not in");
        assertTrue(graph.placed("us", 1, new long[] {2}));

        List<DependencyGraph.Resolved> resolved = graph.resolve();
        assertEquals(2, resolved.size());
        assertEquals(1, resolved.get(0).txn());
        assertArrayEquals(new long[0], resolved.get(0).dependencies(), "the lower id runs first: its cycle edge drops");
        assertEquals(2, resolved.get(1).txn());
        assertArrayEquals(new long[] {1}, resolved.get(1).dependencies());
        assertEquals(2, resolved.get(1).groupSize());
        assertEquals(1, graph.groups());
        assertEquals(2, graph.largestGroup());
        assertEquals(List.of(), graph.resolve(), "a call is resolved once");
    }

    @Test
    void aCallWaitsUntilEveryCallItReachesIsCommittedAndRunsAfterTheGroupsBeforeIt() {
        // 3 -> 2 -> 1 (a chain), and 1 has only eu's placement: nothing can run.
        graph.placed("eu", 3, new long[] {2});
        graph.placed("us", 3, new long[0]);
        graph.placed("eu", 2, new long[] {1});
        graph.placed("us", 2, new long[0]);
        graph.placed("eu", 1, new long[0]);
        assertEquals(List.of(), graph.resolve());

        graph.placed("us", 1, new long[0]);
        List<DependencyGraph.Resolved> resolved = graph.resolve();
        assertEquals(
                List.of(1L, 2L, 3L),
                resolved.stream().map(DependencyGraph.Resolved::txn).toList());
        assertArrayEquals(new long[] {2}, resolved.get(2).dependencies());
        assertEquals(0, graph.groups(), "a chain has no cycle");
    }

    @Test
    void aGroupRunsWholeAfterWhatItNamesOutsideItAndEachMemberAfterTheLowerIdsOfIt() {
        // 5 and 7 form a cycle; 7 also names 4, which is a call on its own.
        graph.placed("eu", 4, new long[0]);
        graph.placed("us", 4, new long[0]);
        graph.placed("eu", 7, new long[] {5, 4});
        graph.placed("us", 7, new long[0]);
        graph.placed("eu", 5, new long[0]);
        graph.placed("us", 5, new long[] {7});
        List<DependencyGraph.Resolved> resolved = graph.resolve();
        assertEquals(
                List.of(4L, 5L, 7L),
                resolved.stream().map(DependencyGraph.Resolved::txn).toList());
        assertArrayEquals(new long[0], resolved.get(1).dependencies(), "5 drops its edge to 7, in its group");
        assertArrayEquals(new long[] {4, 5}, resolved.get(2).dependencies());
    }

    @Test
    void aSitesSecondPlacementOfACallCountsForNothing() {
        graph.placed("eu", 1, new long[0]);
        assertFalse(graph.placed("eu", 1, new long[] {9}), "an earlier scheduler's and its successor's: the first");
        assertTrue(graph.placed("us", 1, new long[0]));
        assertArrayEquals(new long[0], graph.dependenciesOf(1));
        assertFalse(graph.placed("us", 1, new long[] {9}), "a copy after the commit");
    }

    @Test
    void aCallLeavesTheGraphOnceResolvedAndForgottenInEitherOrder() {
        graph.placed("eu", 1, new long[0]);
        graph.forget(1); // its nodes made it visible before this site read every placement
        assertTrue(graph.holds(1), "kept until its group is whole: a call it reaches may still join");
        graph.placed("us", 1, new long[0]);
        assertEquals(1, graph.resolve().size());
        assertFalse(graph.holds(1));

        graph.placed("eu", 2, new long[] {1});
        graph.placed("us", 2, new long[0]);
        assertArrayEquals(new long[] {1}, graph.resolve().get(0).dependencies(), "a call gone is visible here");
        assertTrue(graph.holds(2));
        graph.forget(2);
        assertEquals(0, graph.size());
    }

    @Test
    void aPlacementBySomethingThatIsNotASiteIsRefused() {
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> graph.placed("ap", 1, new long[0]));
        assertTrue(refused.getMessage().contains("'ap'"), refused::getMessage);
        assertEquals(0, graph.size());
    }
}
