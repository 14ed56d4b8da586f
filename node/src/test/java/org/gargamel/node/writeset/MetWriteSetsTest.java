package org.gargamel.node.writeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A copy of a write-set sent again is recognised whatever lies between it and its first copy, and every first copy is
 * taken as one, with memory bounded by the appends open at once ({@link MetWriteSets}, {@link AppendSequence}); a
 * snapshot of the log carries what was met, so a node started from it decides as the others do.
 */
@Tag("unit")
class MetWriteSetsTest {
    private static WriteSet stamped(String origin, long txn, WriteSet.Append append) {
        return new WriteSet(txn, origin, "p", new long[0], -1, List.of()).withAppend(append);
    }

    @Test
    void theWatermarkIsTheLowestAppendNotCommittedYet() {
        AppendSequence appends = new AppendSequence(5);
        assertEquals(new WriteSet.Append(5, 1, 1), appends.open());
        assertEquals(new WriteSet.Append(5, 2, 1), appends.open());
        appends.committed(2);
        assertEquals(new WriteSet.Append(5, 3, 1), appends.open(), "1 is still open");
        appends.committed(1);
        assertEquals(new WriteSet.Append(5, 4, 3), appends.open());
        appends.committed(3);
        appends.committed(4);
        assertEquals(new WriteSet.Append(5, 5, 5), appends.open(), "none open but itself");
    }

    @Test
    void aCopyAMillionWriteSetsBehindItsFirstIsRecognisedWithNothingRememberedOfTheOnesBetween() {
        MetWriteSets met = new MetWriteSets();
        AppendSequence appends = new AppendSequence(9);
        WriteSet first = stamped("node-1", 1, appends.open());
        assertTrue(met.firstCopy(first));
        appends.committed(1);
        for (long txn = 2; txn <= 1_000_000; txn++) {
            WriteSet.Append append = appends.open();
            assertTrue(met.firstCopy(stamped("node-1", txn, append)));
            appends.committed(append.sequence());
        }
        assertEquals(1, met.remembered(), "only the latest append is kept one by one");
        assertFalse(met.firstCopy(first), "the copy, a million write-sets later");
        assertTrue(met.firstCopy(stamped("node-2", 1, new WriteSet.Append(9, 1, 1))), "another origin's own numbering");
    }

    @Test
    void anUnstampedWriteSetIsNeverTakenForACopy() {
        MetWriteSets met = new MetWriteSets();
        WriteSet byHand = new WriteSet(1, "node-1", "p", new long[0], -1, List.of());
        assertTrue(met.firstCopy(byHand));
        assertTrue(met.firstCopy(byHand));
    }

    @Test
    void eachStartOfAnOriginIsNumberedAndDecidedOnItsOwn() {
        MetWriteSets met = new MetWriteSets();
        WriteSet earlier = stamped("node-1", 1, new WriteSet.Append(100, 1, 1));
        WriteSet lateFirst = stamped("node-1", 2, new WriteSet.Append(100, 2, 2));
        assertTrue(met.firstCopy(earlier));
        assertTrue(met.firstCopy(stamped("node-1", 3, new WriteSet.Append(200, 1, 1))), "the next start numbers anew");
        assertFalse(met.firstCopy(earlier), "a copy of the earlier start's");
        assertTrue(met.firstCopy(lateFirst), "the earlier start's next append, met late: a first copy");
        assertFalse(met.firstCopy(stamped("node-1", 4, new WriteSet.Append(200, 1, 1))), "the later start's copy");
        for (long incarnation = 300; incarnation < 300 + MetWriteSets.STARTS - 1; incarnation++) {
            assertTrue(met.firstCopy(stamped("node-1", incarnation, new WriteSet.Append(incarnation, 1, 1))));
        }
        assertTrue(met.firstCopy(earlier), "its start is " + MetWriteSets.STARTS + " starts behind: forgotten");
    }

    /**
     * Property, against an oracle that remembers every identity: an origin opens appends, sends copies of any of them
     * at any time (before and long after they are committed), and commits one only once a copy is in the log (what
     * Raft guarantees). Every entry is decided as the oracle decides, and with every append committed the memory holds
     * one append.
     */
    @Test
    void everyFirstCopyIsTakenAndEveryCopyIgnoredOnRandomHistories() {
        for (int seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            AppendSequence appends = new AppendSequence(seed);
            MetWriteSets met = new MetWriteSets();
            Set<Long> oracle = new HashSet<>();
            List<WriteSet> sent = new ArrayList<>();
            Set<Long> inLog = new HashSet<>();
            Set<Long> open = new HashSet<>();
            int maxRemembered = 0;
            for (int step = 0; step < 2_000; step++) {
                int action = random.nextInt(10);
                if (action < 3 || sent.isEmpty()) {
                    WriteSet.Append append = appends.open();
                    sent.add(stamped("node-1", append.sequence(), append));
                    open.add(append.sequence());
                } else if (action < 7) {
                    // a copy reaches the log: the first send, a send again, or one lingering long after the commit
                    WriteSet copy = sent.get(
                            random.nextInt(10) < 8
                                    ? Math.max(0, sent.size() - 1 - random.nextInt(Math.min(sent.size(), 20)))
                                    : random.nextInt(sent.size()));
                    long sequence = copy.append().sequence();
                    assertEquals(
                            oracle.add(sequence),
                            met.firstCopy(copy),
                            "seed " + seed + ", step " + step + ": append " + sequence);
                    inLog.add(sequence);
                    maxRemembered = Math.max(maxRemembered, met.remembered());
                } else if (!open.isEmpty()) {
                    long candidate = new ArrayList<>(open).get(random.nextInt(open.size()));
                    if (inLog.contains(candidate)) {
                        appends.committed(candidate);
                        open.remove(candidate);
                    }
                }
            }
            for (WriteSet writeSet : sent) {
                long sequence = writeSet.append().sequence();
                assertEquals(oracle.add(sequence), met.firstCopy(writeSet), "seed " + seed + ": append " + sequence);
                appends.committed(sequence);
            }
            WriteSet.Append last = appends.open();
            assertTrue(met.firstCopy(stamped("node-1", last.sequence(), last)));
            assertEquals(1, met.remembered(), "seed " + seed + ": all committed, the latest alone is kept");
            assertTrue(maxRemembered <= sent.size(), "seed " + seed);
        }
    }

    /**
     * A node started from a snapshot of the log (its own after a restart, or the leader's) has not met the entries it
     * covers: the snapshot carries what they were, and a copy of one met after it is ignored there too. A snapshot
     * written before it carried them reads as nothing met.
     */
    @Test
    void aSnapshotOfTheLogCarriesTheWriteSetsMet() throws Exception {
        MetWriteSets met = new MetWriteSets();
        WriteSet inTheSnapshot = stamped("node-1", 1, new WriteSet.Append(3, 1, 1));
        WriteSet lagging = stamped("node-2", 2, new WriteSet.Append(4, 7, 5));
        assertTrue(met.firstCopy(inTheSnapshot));
        assertTrue(met.firstCopy(stamped("node-1", 2, new WriteSet.Append(3, 2, 2))));
        assertTrue(met.firstCopy(lagging));
        assertTrue(met.firstCopy(stamped("node-1", 3, new WriteSet.Append(8, 1, 1))), "node-1 started again");
        WriteSet ofTheLatestStart = stamped("node-1", 4, new WriteSet.Append(8, 2, 1));
        assertTrue(met.firstCopy(ofTheLatestStart));
        byte[] snapshot = snapshot(met, 40);

        MetWriteSets restarted = new MetWriteSets();
        machine(restarted, 40).readContentFrom(new DataInputStream(new ByteArrayInputStream(snapshot)));
        assertFalse(restarted.firstCopy(inTheSnapshot), "an earlier start's, covered by the snapshot");
        assertFalse(restarted.firstCopy(ofTheLatestStart), "the latest start's, covered by the snapshot");
        assertFalse(restarted.firstCopy(lagging), "met above its origin's watermark, covered by the snapshot");
        assertTrue(restarted.firstCopy(stamped("node-2", 3, new WriteSet.Append(4, 6, 5))), "not met yet");

        byte[] nothingMet = snapshot(new MetWriteSets(), 40);
        int withoutIt = nothingMet.length - Integer.BYTES; // an empty MetWriteSets writes its count alone
        MetWriteSets fromOlder = new MetWriteSets();
        assertTrue(fromOlder.firstCopy(inTheSnapshot));
        machine(fromOlder, 40).readContentFrom(new DataInputStream(new ByteArrayInputStream(nothingMet, 0, withoutIt)));
        assertTrue(fromOlder.firstCopy(inTheSnapshot), "an older snapshot: nothing known, as before");
    }

    private static byte[] snapshot(MetWriteSets met, long through) throws Exception {
        LogStateMachine writer = machine(met, through);
        byte[] entry = WireCodec.encode(new LogMark("node-1", 1));
        for (long i = 1; i <= through; i++) {
            writer.apply(entry, 0, entry.length, false);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writer.writeContentTo(new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    private static LogStateMachine machine(MetWriteSets met, long applied) {
        return new LogStateMachine(
                "node-1",
                (entry, index, logId) -> {},
                () -> 1,
                () -> applied,
                () -> {},
                () -> {},
                new ActiveScheduler(),
                reason -> {},
                new org.gargamel.node.shipping.ShippedPositions(),
                met);
    }
}
