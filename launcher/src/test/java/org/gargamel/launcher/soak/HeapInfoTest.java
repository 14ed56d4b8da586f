package org.gargamel.launcher.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The used heap read in {@code GC.heap_info}, on outputs of JDK 17 (17.0.15) pasted as printed: the young and old
 * generations summed for the serial and parallel collectors, G1's one heap, and neither the spaces within a generation
 * nor Metaspace counted; a format without generations (ZGC, Shenandoah) is no reading rather than 0.
 */
@Tag("unit")
class HeapInfoTest {
    private static final long K = 1024;

    @Test
    void serialSumsTheNewAndTenuredGenerations() {
        String output = """
                 def new generation   total 78656K, used 5337K [0x00000000f0000000, 0x00000000f5550000, 0x00000000f5550000)
                  eden space 69952K,   7% used [0x00000000f0000000, 0x00000000f05366f8, 0x00000000f4450000)
                  from space 8704K,   0% used [0x00000000f4450000, 0x00000000f4450000, 0x00000000f4cd0000)
                  to   space 8704K,   0% used [0x00000000f4cd0000, 0x00000000f4cd0000, 0x00000000f5550000)
                 tenured generation   total 174784K, used 16832K [0x00000000f5550000, 0x0000000100000000, 0x0000000100000000)
                   the space 174784K,   9% used [0x00000000f5550000, 0x00000000f65c0380, 0x00000000f65c0400, 0x0000000100000000)
                 Metaspace       used 137K, committed 384K, reserved 1114112K
                  class space    used 4K, committed 128K, reserved 1048576K
                """;
        assertEquals(OptionalLong.of((5337 + 16832) * K), HeapInfo.usedBytes(output));
    }

    @Test
    void serialAfterAFullCollection() {
        String output = """
                 def new generation   total 78656K, used 0K [0x00000000f0000000, 0x00000000f5550000, 0x00000000f5550000)
                  eden space 69952K,   0% used [0x00000000f0000000, 0x00000000f0000000, 0x00000000f4450000)
                  from space 8704K,   0% used [0x00000000f4450000, 0x00000000f4450000, 0x00000000f4cd0000)
                  to   space 8704K,   0% used [0x00000000f4cd0000, 0x00000000f4cd0000, 0x00000000f5550000)
                 tenured generation   total 174784K, used 16835K [0x00000000f5550000, 0x0000000100000000, 0x0000000100000000)
                   the space 174784K,   9% used [0x00000000f5550000, 0x00000000f65c0c18, 0x00000000f65c0e00, 0x0000000100000000)
                 Metaspace       used 127K, committed 320K, reserved 1114112K
                  class space    used 4K, committed 128K, reserved 1048576K
                """;
        assertEquals(OptionalLong.of(16835 * K), HeapInfo.usedBytes(output));
    }

    @Test
    void g1ReportsOneHeap() {
        String output = """
                 garbage-first heap   total 119808K, used 37853K [0x00000000f0000000, 0x0000000100000000)
                  region size 1024K, 4 young (4096K), 0 survivors (0K)
                 Metaspace       used 78K, committed 320K, reserved 1114112K
                  class space    used 3K, committed 128K, reserved 1048576K
                """;
        assertEquals(OptionalLong.of(37853 * K), HeapInfo.usedBytes(output));
    }

    @Test
    void parallelSumsTheYoungAndOldGenerations() {
        String output = """
                 PSYoungGen      total 76288K, used 5258K [0x00000000fab00000, 0x0000000100000000, 0x0000000100000000)
                  eden space 65536K, 8% used [0x00000000fab00000,0x00000000fb022b18,0x00000000feb00000)
                  from space 10752K, 0% used [0x00000000feb00000,0x00000000feb00000,0x00000000ff580000)
                  to   space 10752K, 0% used [0x00000000ff580000,0x00000000ff580000,0x0000000100000000)
                 ParOldGen       total 175104K, used 16833K [0x00000000f0000000, 0x00000000fab00000, 0x00000000fab00000)
                  object space 175104K, 9% used [0x00000000f0000000,0x00000000f1070468,0x00000000fab00000)
                 Metaspace       used 135K, committed 384K, reserved 1114112K
                  class space    used 4K, committed 128K, reserved 1048576K
                """;
        assertEquals(OptionalLong.of((5258 + 16833) * K), HeapInfo.usedBytes(output));
    }

    @Test
    void aFormatWithoutGenerationsIsNoReading() {
        String zgc = """
                 ZHeap           used 36M, capacity 256M, max capacity 256M
                 Metaspace       used 132K, committed 320K, reserved 1114112K
                  class space    used 4K, committed 128K, reserved 1048576K
                """;
        assertEquals(OptionalLong.empty(), HeapInfo.usedBytes(zgc));
        assertEquals(OptionalLong.empty(), HeapInfo.usedBytes(""));
    }
}
