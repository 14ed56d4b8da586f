package org.gargamel.tpcc.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LoadProgressTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicLong clock = new AtomicLong();

    private String output() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withoutATerminalItPrintsALineEveryTenthAndASummary() {
        LoadProgress progress = new LoadProgress(out, false, clock::get);
        progress.start(1_000);
        for (int i = 0; i < 100; i++) {
            clock.addAndGet(10_000_000L); // 10 ms per 10 rows: 1,000 rows/s
            progress.advance(10);
        }
        progress.phase("creating indexes");
        clock.addAndGet(500_000_000L);
        progress.finish(4, 2);

        List<String> lines = Arrays.asList(output().split("\n"));
        assertEquals(11, lines.size(), output());
        assertTrue(
                lines.get(0).startsWith("[###...........................]  10%  1,000 rows/s  ETA 1 s"), lines.get(0));
        assertTrue(lines.get(8).contains(" 90% "), lines.get(8));
        assertFalse(output().contains("100%"), "held below 100% until finished");
        assertFalse(output().contains("\r"));
        assertEquals("creating indexes", lines.get(9));
        assertEquals("loaded 4 warehouses into 2 database(s) in 1.5 s", lines.get(10));
    }

    @Test
    void onATerminalItRedrawsOneLineAFewTimesASecond() {
        LoadProgress progress = new LoadProgress(out, true, clock::get);
        progress.start(100);
        progress.advance(10); // too soon to draw
        assertEquals("", output());
        clock.addAndGet(300_000_000L);
        progress.advance(10);
        clock.addAndGet(300_000_000L);
        progress.advance(10);
        progress.finish(1, 1);
        String[] parts = output().split("\r", -1);
        assertEquals(3, parts.length, output());
        assertTrue(parts[1].contains(" 20% "), parts[1]);
        assertTrue(parts[2].startsWith("[#########"), parts[2]);
        assertTrue(parts[2].endsWith("\nloaded 1 warehouse into 1 database(s) in 0.6 s\n"), parts[2]);
        assertEquals(30, progress.rows());
    }

    @Test
    void optionsRejectNonPositiveWarehousesAndThreads() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new LoadOptions(0, 1, 1));
        assertEquals("--warehouses must be at least 1, was 0", zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LoadOptions(-3, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LoadOptions(1, 1, 0));
        assertThrows(
                IllegalArgumentException.class,
                () -> new TpccLoader(new LoadOptions(1, 1, 1), LoadProgress.silent())
                        .load(List.of("jdbc:postgresql://a/b", "jdbc:postgresql://a/b")));
    }

    @Test
    void everyWarehouseAndTableHasItsOwnSeed() {
        java.util.Set<Long> seeds = new java.util.HashSet<>();
        for (int warehouse = 0; warehouse <= 100; warehouse++) {
            for (int stream = LoadSeeds.CONSTANTS; stream <= LoadSeeds.ORDER_LINE; stream++) {
                seeds.add(LoadSeeds.derive(42, warehouse, stream));
            }
        }
        assertEquals(101 * 9, seeds.size());
        assertEquals(LoadSeeds.derive(42, 3, LoadSeeds.STOCK), LoadSeeds.derive(42, 3, LoadSeeds.STOCK));
        assertFalse(LoadSeeds.derive(42, 3, LoadSeeds.STOCK) == LoadSeeds.derive(43, 3, LoadSeeds.STOCK));
        assertEquals(TpccLoader.loadConstants(42), TpccLoader.loadConstants(42));
    }
}
