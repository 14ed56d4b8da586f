package org.gargamel.node.shipping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Shipped;
import org.gargamel.common.wire.WriteSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ShippedPositionsTest {
    private static Shipped entry(String origin, long previous, long index) {
        return new Shipped(
                origin, previous, index, new WriteSet(index, "node-9", "payment", new long[0], -1, List.of()));
    }

    /** Entries are taken only in their origin's chain: a copy and an entry after a gap are skipped, origins apart. */
    @Test
    void anEntryIsTakenOnlyRightAfterTheLastOneTakenFromItsOrigin() {
        ShippedPositions positions = new ShippedPositions();
        assertTrue(positions.accept(entry("eu", 0, 3)));
        assertFalse(positions.accept(entry("eu", 0, 3)), "a copy");
        assertFalse(positions.accept(entry("eu", 5, 7)), "after a gap: the entry after 3 never came");
        assertTrue(positions.accept(entry("us", 0, 2)), "another origin has a chain of its own");
        assertTrue(positions.accept(entry("eu", 3, 5)));
        assertTrue(positions.accept(new Shipped("eu", 5, 7, new Abandon("node-9", new long[] {4}))));
        assertEquals(7, positions.through("eu"));
        assertEquals(2, positions.through("us"));
        assertEquals(0, positions.through("ap"));
    }

    @Test
    void aWaitEndsOnceThePositionIsTakenOrAtItsTimeout() throws Exception {
        ShippedPositions positions = new ShippedPositions();
        assertFalse(positions.await("eu", 4, 50), "nothing taken yet");
        Thread taker = new Thread(() -> {
            positions.accept(entry("eu", 0, 2));
            positions.accept(entry("eu", 2, 6));
        });
        taker.start();
        assertTrue(positions.await("eu", 4, 10_000), "6 is past 4");
        taker.join();
        assertTrue(positions.await("eu", 6, 0));
    }

    /** A snapshot of the site's log carries the positions: a replica starting from it skips what was taken before. */
    @Test
    void positionsSurviveASnapshot() throws Exception {
        ShippedPositions positions = new ShippedPositions();
        positions.accept(entry("eu", 0, 3));
        positions.accept(entry("us", 0, 8));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        positions.writeTo(new DataOutputStream(bytes));
        ShippedPositions restored = new ShippedPositions();
        restored.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertEquals(3, restored.through("eu"));
        assertEquals(8, restored.through("us"));
        assertFalse(restored.accept(entry("eu", 0, 3)), "taken before the snapshot");
        assertTrue(restored.accept(entry("eu", 3, 9)));
    }
}
