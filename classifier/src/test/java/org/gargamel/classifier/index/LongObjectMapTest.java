package org.gargamel.classifier.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LongObjectMapTest {

    @Test
    void putGetReplaceRemove() {
        LongObjectMap<String> map = new LongObjectMap<>();
        assertTrue(map.isEmpty());
        assertNull(map.put(7, "a"));
        assertEquals("a", map.put(7, "b"));
        assertEquals("b", map.get(7));
        assertEquals(1, map.size());
        assertNull(map.get(8));
        assertNull(map.remove(8));
        assertEquals("b", map.remove(7));
        assertNull(map.get(7));
        assertTrue(map.isEmpty());
        assertThrows(NullPointerException.class, () -> map.put(1, null));
    }

    @Test
    void everyLongIsAKeyIncludingZeroAndExtremes() {
        LongObjectMap<Long> map = new LongObjectMap<>();
        long[] keys = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE};
        for (long key : keys) {
            map.put(key, key);
        }
        for (long key : keys) {
            assertEquals(key, map.get(key));
        }
        assertEquals(keys.length, map.size());
    }

    @Test
    void growsAndShrinksWithItsEntries() {
        LongObjectMap<Integer> map = new LongObjectMap<>();
        assertEquals(LongObjectMap.MIN_CAPACITY, map.capacity());
        for (int i = 0; i < 10_000; i++) {
            map.put(i * 31L, i);
            assertTrue(map.size() <= map.capacity() / 2, "load factor kept");
        }
        assertTrue(map.capacity() >= 20_000);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, map.get(i * 31L));
        }
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, map.remove(i * 31L));
        }
        assertTrue(map.isEmpty());
        assertEquals(LongObjectMap.MIN_CAPACITY, map.capacity(), "shrinks back when emptied");
    }

    @Test
    void backwardShiftKeepsCollidingChainsReachable() {
        // Keys that share their home slot in a 16-slot table (key 0's, slot 0), found by search.
        List<Long> colliding = FibonacciHomes.keysHomedAt(0, 4, 6);
        LongObjectMap<Long> map = new LongObjectMap<>(16);
        assertEquals(16, map.capacity());
        for (long key : colliding.subList(0, 5)) {
            map.put(key, key);
        }
        assertEquals(16, map.capacity(), "no rehash: the chain is a real probe sequence");
        assertFalse(map.removeIfSame(colliding.get(3), colliding.get(0)), "another value: kept");
        // Remove from the head, the middle and the tail of the chain; the rest must stay reachable.
        map.remove(colliding.get(0));
        map.remove(colliding.get(2));
        assertTrue(map.removeIfSame(colliding.get(4), map.get(colliding.get(4))));
        assertEquals(colliding.get(1), map.get(colliding.get(1)));
        assertEquals(colliding.get(3), map.get(colliding.get(3)));
        assertNull(map.get(colliding.get(0)));
        assertNull(map.get(colliding.get(2)));
        assertNull(map.get(colliding.get(5)));
        map.put(colliding.get(5), colliding.get(5));
        assertEquals(colliding.get(5), map.get(colliding.get(5)));
        assertEquals(3, map.size());
    }

    @Test
    void wrapsAroundTheEndOfTheTable() {
        // Keys whose home is the last slot of a 16-slot table probe into slot 0 and on.
        List<Long> last = FibonacciHomes.keysHomedAt(15, 4, 4);
        LongObjectMap<Long> map = new LongObjectMap<>(16);
        for (long key : last) {
            map.put(key, key);
        }
        map.remove(last.get(0));
        for (long key : last.subList(1, 4)) {
            assertEquals(key, map.get(key));
        }
        map.remove(last.get(2));
        assertEquals(last.get(1), map.get(last.get(1)));
        assertEquals(last.get(3), map.get(last.get(3)));
    }

    @Test
    void agreesWithHashMapUnderRandomChurn() {
        SplittableRandom random = new SplittableRandom(3);
        for (int round = 0; round < 20; round++) {
            LongObjectMap<Long> map = new LongObjectMap<>();
            Map<Long, Long> reference = new HashMap<>();
            int range = 1 << (2 + round % 12);
            for (int op = 0; op < 20_000; op++) {
                long key = round % 2 == 0 ? random.nextInt(range) : random.nextLong() % range * 0x100000000L;
                switch (random.nextInt(3)) {
                    case 0 -> assertEquals(reference.put(key, (long) op), map.put(key, (long) op));
                    case 1 -> assertEquals(reference.remove(key), map.remove(key));
                    default -> assertEquals(reference.get(key), map.get(key));
                }
                assertEquals(reference.size(), map.size());
            }
            for (Map.Entry<Long, Long> entry : reference.entrySet()) {
                assertEquals(entry.getValue(), map.get(entry.getKey()));
            }
            long[] seen = {0};
            map.forEachValue(value -> seen[0]++);
            assertEquals(reference.size(), seen[0]);
        }
    }

    @Test
    void forEachValueVisitsEachOnce() {
        LongObjectMap<Object> map = new LongObjectMap<>();
        Object a = new Object();
        Object b = new Object();
        map.put(1, a);
        map.put(2, b);
        List<Object> seen = new ArrayList<>();
        map.forEachValue(seen::add);
        assertEquals(2, seen.size());
        assertTrue(seen.contains(a) && seen.contains(b));
        assertFalse(map.containsKey(3));
        assertSame(a, map.get(1));
    }

    @Test
    void computeIfAbsentCreatesOnlyMissingValuesInOneProbe() {
        LongObjectMap<String> map = new LongObjectMap<>();
        int[] made = {0};
        LongObjectMap.Factory<String, String> factory = (prefix, key) -> {
            made[0]++;
            return prefix + key;
        };
        for (int round = 0; round < 2; round++) {
            for (long key = -50; key < 50; key++) {
                assertEquals("k" + key, map.computeIfAbsent(key, "k", factory));
            }
        }
        assertEquals(100, made[0], "each key made once");
        assertEquals(100, map.size());
        assertTrue(map.size() <= map.capacity() / 2);
        assertFalse(map.removeIfSame(7, "other"));
        assertTrue(map.removeIfSame(7, map.get(7)));
        assertFalse(map.removeIfSame(7, "k7"), "already gone");
        assertEquals(99, map.size());
    }
}
