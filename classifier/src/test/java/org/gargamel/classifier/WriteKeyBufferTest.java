package org.gargamel.classifier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The scheduler's reused key buffer gives, call after call, exactly the keys of a fresh resolution. */
@Tag("unit")
class WriteKeyBufferTest {
    private static final ClassifierRules RULES = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);

    @Test
    void aReusedBufferHoldsExactlyTheKeysOfEachCall() {
        WriteKeyBuffer reused = new WriteKeyBuffer();
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 2_000; i++) {
            ProcedureCall call = TpccCalls.random(random, 3);
            Isolation isolation = i % 2 == 0 ? Isolation.PSI : Isolation.SI;
            RULES.writeKeys(call, isolation, reused);
            List<WriteKey> expected = RULES.writeKeys(call, isolation);
            assertEquals(expected.size(), reused.size(), call.toString());
            for (int k = 0; k < expected.size(); k++) {
                WriteKey key = expected.get(k);
                assertEquals(key.slot(), reused.slot(k), call + " key " + k);
                assertEquals(key.knownParts(), reused.knownParts(k), call + " key " + k);
                assertEquals(key.parts().length, reused.length(k), call + " key " + k);
                for (int depth = 0; depth < reused.length(k); depth++) {
                    // Unknown parts read 0, whatever an earlier call left in the buffer.
                    long part = depth < key.knownParts() ? key.parts()[depth] : 0;
                    assertEquals(part, reused.part(k, depth), call + " key " + k + " part " + depth);
                }
            }
        }
    }

    @Test
    void aLargeCallGrowsTheBufferAndKeepsEveryKey() {
        List<Integer> items = new ArrayList<>();
        for (int item = 1; item <= 40; item++) {
            items.add(item);
        }
        WriteKeyBuffer buffer = new WriteKeyBuffer();
        RULES.writeKeys(TpccCalls.newOrder(1, 2, Collections.nCopies(40, 1), items), Isolation.PSI, buffer);
        assertEquals(41, buffer.size(), "the district and 40 stock rows");
        for (int k = 1; k <= 40; k++) {
            assertEquals(2, buffer.knownParts(k));
            assertEquals(1, buffer.part(k, 0), "supply warehouse of line " + k);
            assertEquals(k, buffer.part(k, 1), "item of line " + k);
        }
    }

    @Test
    void aRejectedCallLeavesTheBufferEmpty() {
        WriteKeyBuffer buffer = new WriteKeyBuffer();
        RULES.writeKeys(TpccCalls.paymentById(1, 1, 1, 1, 5), Isolation.PSI, buffer);
        assertTrue(buffer.size() > 0);
        ProcedureCall zippedBadly = TpccCalls.newOrder(1, 1, List.of(1, 1), List.of(10, 11, 12));
        RulesException error =
                assertThrows(RulesException.class, () -> RULES.writeKeys(zippedBadly, Isolation.PSI, buffer));
        assertTrue(
                error.getMessage().contains("have 2 and 3 elements")
                        || error.getMessage().contains("have 3 and 2 elements"),
                error.getMessage());
        assertEquals(0, buffer.size(), "no key of the rejected call, none of the one before");
    }

    @Test
    void keysAddedByHandAreCopiedUpToTheirKnownParts() {
        WriteKeyBuffer buffer = new WriteKeyBuffer();
        long[] parts = {4, 9, 7};
        buffer.add(3, parts, 2);
        parts[0] = 99; // the buffer holds a copy
        assertEquals(1, buffer.size());
        assertArrayEquals(new long[] {4, 9, 0}, new long[] {buffer.part(0, 0), buffer.part(0, 1), buffer.part(0, 2)});
        assertThrows(IllegalArgumentException.class, () -> buffer.add(3, parts, 4));
        assertEquals(1, buffer.size(), "a refused key adds nothing");
    }
}
