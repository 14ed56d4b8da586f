package org.gargamel.node.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The position rule of {@link AppliedPosition}, without PostgreSQL: a random log is applied the way the apply loop's
 * appliers use the position (one by one, in groups that may give way, on parallel appliers finishing in any order;
 * write-sets waiting in a commit-order chain, some dropped by an ABANDON), with crashes at random moments after which
 * the log is replayed from its first entry against what the database kept. A reference model of the database (the
 * entries its committed transactions applied, its applied index and committed_ahead rows) checks that no entry is
 * applied twice, none is skipped, and a recorded position never passes an entry not applied yet.
 */
@Tag("unit")
class AppliedPositionTest {
    private static final int SEEDS = 3_000;

    private enum Mode {
        SERIAL,
        GROUP,
        PARALLEL
    }

    private enum Kind {
        /** A mark or a claim: handled, nothing applied. */
        OTHER,
        /** A write-set with changes. */
        CHANGES,
        /** A write-set with no changes. */
        EMPTY,
        /** A write-set whose transaction an ABANDON settled before it came: discarded. */
        ABANDONED_BEFORE,
        /** An ABANDON dropping write-sets that wait in their chain. */
        ABANDON
    }

    /** One entry of the log; {@code trigger}: the entry after which it is due (chain), 0 if due when delivered. */
    private record Entry(long index, Kind kind, long trigger, boolean dropped) {
        long txn() {
            return 1_000 + index;
        }

        boolean applies() {
            return kind == Kind.CHANGES && !dropped;
        }
    }

    /** The database: what survives a crash. */
    private static final class Database {
        final Map<Long, Integer> applied = new HashMap<>();
        final Set<Long> committedAhead = new HashSet<>();
        long position;
    }

    @Test
    void noEntryIsAppliedTwiceNoneIsSkippedAndThePositionNeverPassesAnUnappliedEntry() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            Random random = new Random(seed);
            Mode mode = Mode.values()[random.nextInt(Mode.values().length)];
            List<Entry> log = log(random, 20 + random.nextInt(80));
            Run run = new Run(seed, mode, log, random);
            run.untilTheEnd();
            String context = "seed " + seed + " (" + mode + ")";
            for (Entry entry : log) {
                assertEquals(
                        entry.applies() ? 1 : 0,
                        run.database.applied.getOrDefault(entry.index(), 0),
                        context + ": times entry " + entry.index() + " (" + entry.kind()
                                + (entry.dropped() ? ", dropped" : "") + ") was applied");
            }
            assertEquals(log.size(), run.database.position, context + ": the position at the end of the log");
            assertTrue(run.database.committedAhead.isEmpty(), context + ": committed_ahead rows left");
            // A last restart replays the whole log and applies nothing again.
            run.restart();
            run.untilTheEnd();
            for (Entry entry : log) {
                assertEquals(
                        entry.applies() ? 1 : 0,
                        run.database.applied.getOrDefault(entry.index(), 0),
                        context + ": times entry " + entry.index() + " was applied after a replay");
            }
        }
    }

    @Test
    void aHeldEntryKeepsThePositionBeforeIt() {
        AppliedPosition position = new AppliedPosition(4, Set.of());
        position.handled(5);
        position.hold(6); // waits in its chain
        position.handled(7);
        assertEquals(5, position.after(7));
        AppliedPosition.Write write = position.forOne(7, 77);
        assertEquals(5, write.position());
        assertEquals(List.of(new AppliedPosition.Ahead(77, 7)), write.ahead());
        position.committed(write);
        position.release(6);
        position.handled(6);
        AppliedPosition.Write flush = position.flush();
        assertEquals(7, flush.position());
        assertEquals(List.of(77L), flush.passed(), "the row of 7 is forgotten by the write that passes it");
        position.committed(flush);
        assertNull(position.flush(), "nothing left to record");
    }

    @Test
    void thePositionNeverGoesBack() {
        AppliedPosition position = new AppliedPosition(10, Set.of());
        assertEquals(10, position.after(3), "a replayed entry does not move the recorded position back");
        position.hold(11);
        position.handled(12);
        assertEquals(10, position.after(12));
    }

    /** A random log: entries, some write-sets waiting for a later one in their chain, some of those dropped. */
    private static List<Entry> log(Random random, int size) {
        Kind[] kinds = new Kind[size + 1];
        for (int i = 1; i <= size; i++) {
            int draw = random.nextInt(100);
            kinds[i] = draw < 10
                    ? Kind.OTHER
                    : draw < 18
                            ? Kind.EMPTY
                            : draw < 22 ? Kind.ABANDONED_BEFORE : draw < 30 ? Kind.ABANDON : Kind.CHANGES;
        }
        long[] trigger = new long[size + 1];
        boolean[] dropped = new boolean[size + 1];
        for (int i = size; i >= 1; i--) { // later entries decided first: a trigger is never itself dropped
            if ((kinds[i] != Kind.CHANGES && kinds[i] != Kind.EMPTY) || random.nextInt(100) >= 30) {
                continue;
            }
            boolean drop = random.nextInt(100) < 25;
            List<Integer> candidates = new ArrayList<>();
            for (int j = i + 1; j <= Math.min(size, i + 10); j++) {
                boolean writeSet = kinds[j] == Kind.CHANGES || kinds[j] == Kind.EMPTY;
                if (drop ? kinds[j] == Kind.ABANDON : writeSet && !dropped[j]) {
                    candidates.add(j);
                }
            }
            if (!candidates.isEmpty()) {
                trigger[i] = candidates.get(random.nextInt(candidates.size()));
                dropped[i] = drop;
            }
        }
        List<Entry> log = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            log.add(new Entry(i, kinds[i], trigger[i], dropped[i]));
        }
        return log;
    }

    /** The apply loop's use of the position, one process's life after another, against the {@link Database}. */
    private static final class Run {
        final long seed;
        final Mode mode;
        final List<Entry> log;
        final Random random;
        final Database database = new Database();
        /** Entries waiting for each trigger. */
        final Map<Long, List<Entry>> waitingFor = new HashMap<>();

        AppliedPosition position;
        /** Where this process's life began: entries up to it were handled by an earlier one. */
        long startedAt;
        /** Entries handled by this process (applied, decided, dropped or held by an applier). */
        Set<Long> handledHere;
        /** Entries this process waits for (chain), or holds in a group or a parallel applier. */
        Set<Long> unappliedHere;

        List<Entry> group;
        /** Parallel tasks in flight, and the ones committed but not taken back yet. */
        List<Task> running;

        List<Task> finished;
        int next;
        int restartsLeft = 3;

        record Task(Entry entry, AppliedPosition.Write write) {}

        Run(long seed, Mode mode, List<Entry> log, Random random) {
            this.seed = seed;
            this.mode = mode;
            this.log = log;
            this.random = random;
            for (Entry entry : log) {
                if (entry.trigger() != 0) {
                    waitingFor
                            .computeIfAbsent(entry.trigger(), t -> new ArrayList<>())
                            .add(entry);
                }
            }
            restart();
        }

        /** A new process: memory lost, in-flight transactions rolled back; the log replayed from its first entry. */
        void restart() {
            position = new AppliedPosition(database.position, database.committedAhead);
            startedAt = database.position;
            handledHere = new HashSet<>();
            unappliedHere = new HashSet<>();
            group = new ArrayList<>();
            running = new ArrayList<>();
            finished = new ArrayList<>();
            next = 0;
        }

        void untilTheEnd() {
            while (next < log.size()) {
                if (next > 0 && restartsLeft > 0 && random.nextInt(100) < 2) {
                    restartsLeft--; // a crash
                    restart();
                    continue;
                }
                handle(log.get(next++));
                if (random.nextInt(100) < 10) {
                    idle();
                }
                if (!running.isEmpty() && random.nextInt(100) < 40) {
                    finishOne();
                }
                if (random.nextInt(100) < 30) {
                    takeFinished();
                }
            }
            idle();
        }

        String at(Entry entry) {
            return "seed " + seed + " (" + mode + "), entry " + entry.index() + ": ";
        }

        void handle(Entry entry) {
            switch (entry.kind()) {
                case OTHER -> {
                    handledHere.add(entry.index());
                    position.handled(entry.index());
                }
                case ABANDON -> {
                    drain(); // whether a transaction stands depends on whether its write-set is visible
                    for (Entry waiting : waitingFor.getOrDefault(entry.index(), List.of())) {
                        if (waiting.dropped() && unappliedHere.remove(waiting.index())) {
                            position.release(waiting.index());
                            handledHere.add(waiting.index());
                        }
                    }
                    handledHere.add(entry.index());
                    position.handled(entry.index());
                }
                case ABANDONED_BEFORE -> {
                    flush();
                    handledHere.add(entry.index());
                    position.handled(entry.index());
                }
                case CHANGES, EMPTY -> {
                    if (entry.trigger() != 0) {
                        unappliedHere.add(entry.index());
                        position.hold(entry.index()); // waits in its chain
                        return;
                    }
                    due(entry);
                }
            }
        }

        /** A write-set that is due, then the ones that waited for it (CommitOrderChains). */
        void due(Entry entry) {
            writeSet(entry);
            for (Entry waiting : waitingFor.getOrDefault(entry.index(), List.of())) {
                if (!waiting.dropped() && unappliedHere.remove(waiting.index())) {
                    position.release(waiting.index());
                    due(waiting);
                }
            }
        }

        void writeSet(Entry entry) {
            if (position.replayed(entry.index()) || position.takeCommittedAhead(entry.txn())) {
                if (!position.replayed(entry.index())) {
                    position.committedAhead(entry.txn(), entry.index());
                }
                handledHere.add(entry.index());
                position.handled(entry.index());
                return;
            }
            switch (mode) {
                case SERIAL -> alone(entry);
                case GROUP -> intoGroup(entry);
                case PARALLEL -> submit(entry);
            }
        }

        void alone(Entry entry) {
            handledHere.add(entry.index());
            if (entry.kind() == Kind.EMPTY) {
                position.handled(entry.index());
                return;
            }
            AppliedPosition.Write write = position.forOne(entry.index(), entry.txn());
            commit(List.of(entry), write);
            position.handled(entry.index());
            position.committed(write);
        }

        void intoGroup(Entry entry) {
            unappliedHere.add(entry.index());
            position.hold(entry.index());
            if (!group.isEmpty() && (entry.kind() == Kind.EMPTY || random.nextInt(100) < 10)) {
                flush(); // a member with unmet dependencies
            }
            if (entry.kind() == Kind.EMPTY) {
                unappliedHere.remove(entry.index());
                position.release(entry.index());
                handledHere.add(entry.index());
                position.handled(entry.index());
                return;
            }
            group.add(entry);
            handledHere.add(entry.index());
            position.handled(entry.index());
            if (group.size() >= 1 + random.nextInt(8) || random.nextInt(100) < 20) {
                flush();
            }
        }

        /** GroupApplier.flush: one transaction, or one per member when the group gives way. */
        void flush() {
            if (group.isEmpty()) {
                return;
            }
            List<Entry> members = new ArrayList<>(group);
            group.clear();
            if (members.size() == 1 || random.nextInt(100) < 15) { // alone, or the group gave way: one by one
                for (Entry member : members) {
                    position.release(member.index());
                    unappliedHere.remove(member.index());
                    alone(member);
                }
                return;
            }
            List<AppliedPosition.Ahead> taken = new ArrayList<>();
            for (Entry member : members) {
                position.release(member.index());
                taken.add(new AppliedPosition.Ahead(member.txn(), member.index()));
            }
            AppliedPosition.Write write = position.forGroup(taken);
            members.forEach(member -> unappliedHere.remove(member.index()));
            commit(members, write);
            position.committed(write);
        }

        void submit(Entry entry) {
            AppliedPosition.Write write = entry.kind() == Kind.EMPTY
                    ? AppliedPosition.Write.NONE
                    : position.forParallel(entry.index(), entry.txn());
            running.add(new Task(entry, write));
            unappliedHere.add(entry.index());
            position.hold(entry.index());
            handledHere.add(entry.index());
            position.handled(entry.index());
        }

        /** A parallel applier commits one of the tasks in flight, any of them. */
        void finishOne() {
            Task task = running.remove(random.nextInt(running.size()));
            unappliedHere.remove(task.entry().index());
            if (task.entry().kind() == Kind.CHANGES) {
                commit(List.of(task.entry()), task.write());
            }
            finished.add(task);
        }

        void takeFinished() {
            for (Task task : finished) {
                position.release(task.entry().index());
                position.committed(task.write());
            }
            finished.clear();
        }

        void drain() {
            flush();
            while (!running.isEmpty()) {
                finishOne();
            }
            takeFinished();
        }

        /** ApplyLoop.flushPosition. */
        void idle() {
            drain();
            AppliedPosition.Write write = position.flush();
            if (write != null) {
                commit(List.of(), write);
                position.committed(write);
            }
        }

        /** A transaction commits {@code entries} with {@code write}; checked against the reference model. */
        void commit(List<Entry> entries, AppliedPosition.Write write) {
            for (Entry entry : entries) {
                int times = database.applied.merge(entry.index(), 1, Integer::sum);
                assertEquals(1, times, at(entry) + "applied twice");
            }
            for (AppliedPosition.Ahead ahead : write.ahead()) {
                database.committedAhead.add(ahead.txn());
            }
            database.committedAhead.removeAll(write.passed());
            if (!write.writesPosition()) {
                return;
            }
            assertTrue(
                    write.position() >= database.position,
                    "seed " + seed + ": the position went back from " + database.position + " to " + write.position());
            for (Entry entry : log.subList(0, (int) write.position())) {
                boolean reflected = entry.applies()
                        ? database.applied.containsKey(entry.index())
                        : entry.index() <= startedAt
                                || (handledHere.contains(entry.index()) && !unappliedHere.contains(entry.index()));
                assertTrue(
                        reflected,
                        at(entry) + "position " + write.position() + " recorded before this entry was applied");
            }
            database.position = write.position();
        }
    }
}
