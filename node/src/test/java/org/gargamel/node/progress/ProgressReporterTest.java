package org.gargamel.node.progress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Progress;
import org.gargamel.common.wire.Settlement;
import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a node reports while it has no scheduler in sight (its control view has none, though the scheduler may still
 * count it: views are not symmetric during a merge) reaches the scheduler once the node sees one again, instead of
 * being dropped; a dropped report kept the scheduler's transactions in flight for ever (PartitionIT's node partition).
 */
@Tag("unit")
class ProgressReporterTest {
    private record Sent(Address target, Message message) {}

    @Test
    void reportsAndSettlementsMadeWithNoSchedulerInSightGoToTheNextOneSeen() throws Exception {
        AtomicReference<Address> scheduler = new AtomicReference<>();
        AtomicInteger looks = new AtomicInteger();
        List<Sent> sent = new CopyOnWriteArrayList<>();
        ProgressReporter reporter = new ProgressReporter(
                "node-1",
                () -> {
                    looks.incrementAndGet();
                    return scheduler.get();
                },
                (target, message) -> sent.add(new Sent(target, message)));
        Thread loop = new Thread(
                () -> {
                    try {
                        reporter.run();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "reporter");
        loop.setDaemon(true);
        loop.start();
        try {
            Settlement settlement = new Settlement("node-1", "node-3", new long[] {4}, List.of(), new long[0]);
            reporter.settled(settlement);
            for (long txn = 1; txn <= 5000; txn++) { // more than one batch
                reporter.visible(txn);
            }
            // The loop looks for a scheduler several times while there is none, with all of it waiting.
            int before = looks.get();
            Await.until("the reporter looking for a scheduler", Duration.ofSeconds(10), () -> looks.get() > before + 3);
            assertTrue(sent.isEmpty(), "nothing can be sent with no scheduler in sight: " + sent);

            Address found = UUID.randomUUID();
            scheduler.set(found);
            Await.until(
                    "the settlement and every report sent to the scheduler in sight",
                    Duration.ofSeconds(10),
                    () -> reported(sent).length == 5000 && sent.stream().anyMatch(s -> s.message() == settlement),
                    sent::size);
            assertTrue(sent.stream().allMatch(s -> s.target().equals(found)), sent.toString());
            assertInstanceOf(Settlement.class, sent.get(0).message(), "the settlement goes before the reports");
            assertArrayEquals(LongStream.rangeClosed(1, 5000).toArray(), reported(sent), "each report once, in order");

            // In sight, a report goes on its own as before.
            reporter.visible(5001);
            Await.until("a later report", Duration.ofSeconds(10), () -> reported(sent).length == 5001);
            assertEquals(
                    1,
                    sent.stream().filter(s -> s.message() instanceof Settlement).count());
        } finally {
            loop.interrupt();
            loop.join(10_000);
        }
    }

    /** A node closing sends its last reports at once, not at the next interval its closed channel would not see. */
    @Test
    void flushSendsWhatWaitsWithoutTheLoop() {
        Address found = UUID.randomUUID();
        List<Sent> sent = new CopyOnWriteArrayList<>();
        ProgressReporter reporter =
                new ProgressReporter("node-1", () -> found, (target, message) -> sent.add(new Sent(target, message)));
        reporter.visible(7);
        reporter.visible(8);
        reporter.flush(); // no loop runs in this test: only flush can have sent them
        assertArrayEquals(new long[] {7, 8}, reported(sent));
        reporter.flush();
        assertEquals(1, sent.size(), "nothing waits any more: nothing more sent");
    }

    /**
     * Out of sight for long, a node holds at most {@link ProgressReporter#HELD} ids (an hours-long partition grew an
     * unbounded queue): the ids beyond are forgotten, and the next report after the ones still held says how many, so
     * that the scheduler asks what it still awaits (scheduler's {@code ForgottenReportsTest}).
     */
    @Test
    void idsBeyondTheBoundAreForgottenAndTheNextReportSaysHowMany() {
        AtomicReference<Address> scheduler = new AtomicReference<>();
        List<Sent> sent = new CopyOnWriteArrayList<>();
        ProgressReporter reporter = new ProgressReporter(
                "node-1", scheduler::get, (target, message) -> sent.add(new Sent(target, message)));
        int added = 2 * ProgressReporter.HELD + 10;
        for (long txn = 1; txn <= added; txn++) {
            reporter.visible(txn);
            assertTrue(reporter.waiting() <= ProgressReporter.HELD, "ids held: " + reporter.waiting());
        }
        reporter.flush(); // no scheduler in sight: nothing sent
        assertTrue(sent.isEmpty(), sent.toString());

        scheduler.set(UUID.randomUUID());
        reporter.flush();
        assertArrayEquals(
                LongStream.rangeClosed(2L * ProgressReporter.HELD + 1, added).toArray(),
                reported(sent),
                "the ids added since the last forgetting, in order");
        Progress last = (Progress) sent.get(sent.size() - 1).message();
        assertEquals(2L * ProgressReporter.HELD, last.forgotten(), "the last report counts the forgotten ids");
        assertEquals(0, last.visible().length, last.toString());
        assertTrue(
                sent.subList(0, sent.size() - 1).stream().allMatch(s -> ((Progress) s.message()).forgotten() == 0),
                "only one report counts them");

        reporter.visible(added + 1);
        reporter.flush();
        assertEquals(0, ((Progress) sent.get(sent.size() - 1).message()).forgotten(), "counted once");
    }

    private static long[] reported(List<Sent> sent) {
        return sent.stream()
                .filter(s -> s.message() instanceof Progress)
                .flatMapToLong(s -> LongStream.of(((Progress) s.message()).visible()))
                .toArray();
    }
}
