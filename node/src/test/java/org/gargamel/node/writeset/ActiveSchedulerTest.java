package org.gargamel.node.writeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.TransactionIds;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the log decided about schedulers survives the truncation of the entries that decided it: a snapshot of the
 * write-set log carries the active claimant, its epoch and the superseded ones, so a node that starts from the snapshot
 * drops calls of earlier epochs and never takes a superseded scheduler back; a snapshot past what the replica applied
 * asks for a rebuild instead.
 */
@Tag("unit")
class ActiveSchedulerTest {
    private final Address first = UUID.randomUUID();
    private final Address second = UUID.randomUUID();

    @Test
    void aSupersededSchedulerNeverComesBack() {
        ActiveScheduler schedulers = new ActiveScheduler();
        assertTrue(schedulers.claim(first, 5));
        assertEquals(EpochGranted.NO_PREDECESSOR, schedulers.predecessorEpoch(), "the first scheduler succeeds none");
        assertTrue(schedulers.claim(second, 9));
        assertEquals(5, schedulers.predecessorEpoch(), "the second succeeds the first's epoch");
        assertTrue(schedulers.superseded(first));
        assertFalse(schedulers.superseded(second));
        assertFalse(schedulers.claim(first, 12), "a later copy of a superseded claim changes nothing");
        assertEquals(second, schedulers.claimant());
        assertTrue(schedulers.stale(TransactionIds.firstOf(5)));
        assertFalse(schedulers.stale(TransactionIds.firstOf(9)));
    }

    @Test
    void aNodeStartingFromASnapshotKnowsTheEpochAndWhoWasSuperseded() throws Exception {
        ActiveScheduler decided = new ActiveScheduler();
        decided.claim(first, 5);
        decided.claim(second, 9);
        byte[] snapshot = snapshotOf(decided, 40);

        ActiveScheduler restarted = new ActiveScheduler();
        List<String> rebuilds = new ArrayList<>();
        List<Long> changes = new ArrayList<>();
        restarted.onChange(() -> changes.add(restarted.epoch()));
        LogStateMachine machine = machine(restarted, 40, rebuilds);
        machine.readContentFrom(new DataInputStream(new ByteArrayInputStream(snapshot)));

        assertEquals(List.of(), rebuilds);
        assertEquals(second, restarted.claimant());
        assertEquals(9, restarted.epoch());
        assertEquals(EpochGranted.UNKNOWN, restarted.predecessorEpoch(), "a snapshot does not say whom 9 succeeded");
        assertEquals(List.of(9L), changes, "listeners hear of the epoch once");
        assertTrue(restarted.stale(TransactionIds.firstOf(5)), "a call of the superseded epoch must not run");
        assertTrue(restarted.superseded(first));
        assertFalse(restarted.claim(first, 50), "the superseded scheduler is not taken back");
    }

    @Test
    void aSnapshotPastWhatTheReplicaAppliedAsksForARebuild() throws Exception {
        ActiveScheduler decided = new ActiveScheduler();
        decided.claim(first, 5);
        byte[] snapshot = snapshotOf(decided, 40);
        ActiveScheduler behind = new ActiveScheduler();
        List<String> rebuilds = new ArrayList<>();
        LogStateMachine machine = machine(behind, 30, rebuilds);
        FatalException failure = assertThrows(
                FatalException.class,
                () -> machine.readContentFrom(new DataInputStream(new ByteArrayInputStream(snapshot))));
        assertEquals(1, rebuilds.size());
        assertTrue(
                rebuilds.get(0).contains("truncated at entry 40")
                        && rebuilds.get(0).contains("up to 30"),
                rebuilds.get(0));
        assertTrue(failure.getMessage().contains("rebuilt by state transfer"), failure.getMessage());
        assertNull(behind.claimant(), "nothing taken from a snapshot it cannot use");
    }

    /** A snapshot written by a log state machine that has applied {@code through} entries. */
    private static byte[] snapshotOf(ActiveScheduler decided, long through) throws Exception {
        LogStateMachine writer = machine(decided, through, new ArrayList<>());
        byte[] entry = WireCodec.encode(new LogMark("node-1", 1));
        for (long i = 1; i <= through; i++) {
            writer.apply(entry, 0, entry.length, false);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writer.writeContentTo(new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    private static LogStateMachine machine(ActiveScheduler schedulers, long applied, List<String> rebuilds) {
        return new LogStateMachine(
                "node-1",
                (entry, index, logId) -> {},
                () -> 1,
                () -> applied,
                () -> {},
                () -> {},
                schedulers,
                rebuilds::add,
                new org.gargamel.node.shipping.ShippedPositions(),
                new MetWriteSets());
    }
}
