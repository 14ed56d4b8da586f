package org.gargamel.launcher.soak;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The used heap in the output of HotSpot's {@code GC.heap_info} diagnostic command (JDK 17): the sum of the
 * {@code used} of every line {@code NAME total NK, used NK [...]}, which the JVM prints once per generation or heap
 * (serial: "def new generation" and "tenured generation"; parallel: "PSYoungGen" and "ParOldGen"; G1: "garbage-first
 * heap"). Not counted: the spaces within a generation ("eden space NK, 0% used"), and Metaspace and class space
 * ("used NK, committed NK, reserved NK"), which are not heap. An output without any such line (a collector printing
 * another format: ZGC, Shenandoah) has no reading rather than a used heap of 0. Guarded by {@code HeapInfoTest}, on the
 * real outputs of the three collectors.
 */
final class HeapInfo {
    private static final Pattern GENERATION = Pattern.compile("\\stotal\\s+\\d+K,\\s+used\\s+(\\d+)K\\b");

    private HeapInfo() {}

    /** The used heap {@code heapInfo} reports, in bytes; empty if it reports none. */
    static OptionalLong usedBytes(String heapInfo) {
        long usedKilobytes = 0;
        boolean found = false;
        for (String line : heapInfo.split("\n", -1)) {
            Matcher generation = GENERATION.matcher(line);
            if (generation.find()) {
                usedKilobytes += Long.parseLong(generation.group(1));
                found = true;
            }
        }
        return found ? OptionalLong.of(usedKilobytes * 1024) : OptionalLong.empty();
    }
}
