package org.gargamel.classifier.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LongLongMapTest {
    private static final long ABSENT = LongLongMap.ABSENT;

    @Test
    void putGetReplaceRemoveIfSame() {
        LongLongMap map = new LongLongMap();
        assertTrue(map.isEmpty());
        assertEquals(ABSENT, map.put(7, 1));
        assertEquals(1, map.put(7, 2));
        assertEquals(2, map.get(7));
        assertEquals(ABSENT, map.get(8));
        assertFalse(map.removeIfSame(7, 1), "another value: kept");
        assertEquals(1, map.size());
        assertTrue(map.removeIfSame(7, 2));
        assertFalse(map.removeIfSame(7, 2), "already gone");
        assertTrue(map.isEmpty());
        assertThrows(IllegalArgumentException.class, () -> map.put(1, ABSENT));
    }

    @Test
    void everyLongIsAKeyAndEveryOtherLongAValue() {
        LongLongMap map = new LongLongMap();
        long[] keys = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE};
        for (long key : keys) {
            map.put(key, key == Long.MIN_VALUE ? 0 : key);
        }
        for (long key : keys) {
            assertEquals(key == Long.MIN_VALUE ? 0 : key, map.get(key));
        }
        assertEquals(keys.length, map.size());
    }

    @Test
    void growsAndShrinksWithItsEntries() {
        LongLongMap map = new LongLongMap();
        assertEquals(LongLongMap.MIN_CAPACITY, map.capacity());
        for (int i = 0; i < 10_000; i++) {
            map.put(i * 31L, i);
            assertTrue(map.size() <= map.capacity() / 2, "load factor kept");
        }
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, map.get(i * 31L));
        }
        for (int i = 0; i < 10_000; i++) {
            assertTrue(map.removeIfSame(i * 31L, i));
        }
        assertTrue(map.isEmpty());
        assertEquals(LongLongMap.MIN_CAPACITY, map.capacity(), "shrinks back when emptied");
    }

    @Test
    void backwardShiftKeepsCollidingChainsAndWrapAroundReachable() {
        // Keys whose home is the last slot of a 16-slot table: their chain wraps into slot 0 and on.
        List<Long> last = FibonacciHomes.keysHomedAt(15, 4, 5);
        LongLongMap map = new LongLongMap(16);
        for (long key : last.subList(0, 4)) {
            map.put(key, key + 1);
        }
        assertEquals(16, map.capacity(), "no rehash: the chain is a real probe sequence");
        assertTrue(map.removeIfSame(last.get(0), last.get(0) + 1));
        assertTrue(map.removeIfSame(last.get(2), last.get(2) + 1));
        assertEquals(last.get(1) + 1, map.get(last.get(1)));
        assertEquals(last.get(3) + 1, map.get(last.get(3)));
        assertEquals(ABSENT, map.get(last.get(0)));
        assertEquals(ABSENT, map.get(last.get(4)));
    }

    @Test
    void agreesWithHashMapUnderRandomChurn() {
        SplittableRandom random = new SplittableRandom(5);
        for (int round = 0; round < 20; round++) {
            LongLongMap map = new LongLongMap();
            Map<Long, Long> reference = new HashMap<>();
            int range = 1 << (2 + round % 12);
            for (int op = 0; op < 20_000; op++) {
                long key = round % 2 == 0 ? random.nextInt(range) : random.nextLong() % range * 0x100000000L;
                long value = random.nextInt(4);
                switch (random.nextInt(3)) {
                    case 0 -> {
                        Long previous = reference.put(key, value);
                        assertEquals(previous == null ? ABSENT : previous, map.put(key, value), "put " + key);
                    }
                    case 1 -> {
                        boolean same = reference.containsKey(key) && reference.get(key) == value;
                        assertEquals(same, map.removeIfSame(key, value), "removeIfSame " + key);
                        if (same) {
                            reference.remove(key);
                        }
                    }
                    default -> assertEquals(reference.getOrDefault(key, ABSENT), (Long) map.get(key), "get " + key);
                }
                if (random.nextInt(3) == 0) {
                    reference.put(key, value);
                    map.put(key, value);
                }
                assertEquals(reference.size(), map.size());
            }
            for (Map.Entry<Long, Long> entry : reference.entrySet()) {
                assertEquals(entry.getValue(), (Long) map.get(entry.getKey()));
            }
        }
    }
}
