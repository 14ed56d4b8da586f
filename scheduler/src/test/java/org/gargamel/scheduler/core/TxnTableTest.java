package org.gargamel.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The scheduler's id table against a HashMap on random puts, gets and removes (growing and shrinking). */
@Tag("unit")
class TxnTableTest {
    @Test
    void behavesLikeAHashMap() {
        SplittableRandom random = new SplittableRandom(3);
        TxnTable<Long> table = new TxnTable<>();
        Map<Long, Long> reference = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            long key = 1 + random.nextLong(step < 100_000 ? 5_000 : 500);
            switch (random.nextInt(step < 100_000 ? 3 : 4)) {
                case 0 -> {
                    table.put(key, key * 7 + step);
                    reference.put(key, key * 7 + step);
                }
                case 1 -> assertEquals(reference.get(key), table.get(key));
                default -> {
                    table.remove(key);
                    reference.remove(key);
                }
            }
            assertEquals(reference.size(), table.size());
        }
        for (long key = 1; key <= 5_000; key++) {
            assertEquals(reference.get(key), table.get(key));
        }
        assertEquals(new HashSet<>(reference.values()), new HashSet<>(table.values()));
    }
}
