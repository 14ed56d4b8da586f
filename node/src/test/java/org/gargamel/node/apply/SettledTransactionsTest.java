package org.gargamel.node.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Settlement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link SettledTransactions}: every copy of a decision gets the answer the first one got, a transaction is settled
 * once, and the memory forgets its oldest first. With the log, NodeServerTest.
 * aRepeatedAbandonIsAnsweredWithTheSettlementAlreadyReached.
 */
@Tag("unit")
class SettledTransactionsTest {
    private final CallOutcome paid = CallOutcome.committed(7, 4, "paid");

    @Test
    void everyCopyOfADecisionIsAnsweredAsTheFirstWas() {
        SettledTransactions settled = new SettledTransactions(16);
        settled.abandoned(1);
        settled.stood(4, paid);
        settled.stood(5, null);
        Settlement expected = new Settlement("node-1", "node-3", new long[] {1}, List.of(paid), new long[] {5});
        assertEquals(expected, settled.answer("node-1", "node-3", new long[] {1, 4, 5}));
        assertEquals(expected, settled.answer("node-1", "node-3", new long[] {1, 4, 5}), "again, alike");
        assertEquals(
                new Settlement("node-1", "node-3", new long[] {1}, List.of(), new long[0]),
                settled.answer("node-1", "node-3", new long[] {1, 9}),
                "what was not settled here is left out");
    }

    @Test
    void aTransactionIsSettledOnce() {
        SettledTransactions settled = new SettledTransactions(16);
        settled.abandoned(1);
        assertTrue(settled.contains(1));
        settled.stood(1, paid); // a decision naming 1 twice: the first settlement stands, nothing stops
        assertEquals(
                new Settlement("n", "o", new long[] {1}, List.of(), new long[0]),
                settled.answer("n", "o", new long[] {1}),
                "the first answer stays");
    }

    @Test
    void theOldestAreForgottenFirst() {
        SettledTransactions settled = new SettledTransactions(2);
        settled.abandoned(1);
        settled.abandoned(2);
        settled.abandoned(3);
        assertFalse(settled.contains(1));
        assertTrue(settled.contains(2) && settled.contains(3));
    }
}
