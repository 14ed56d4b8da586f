package org.gargamel.node.shipping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.LogMark;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Shipped;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shipper with a fake site log (a list; taking an entry is {@link ShippedPositions#accept}, as the apply loop does)
 * and another site's log fed to its follower by hand, as jgroups-raft hands a learner its committed entries.
 */
@Tag("unit")
class SiteShippingTest {
    private final List<Shipped> appended = new CopyOnWriteArrayList<>();
    private final ShippedPositions positions = new ShippedPositions();
    private final AtomicBoolean leads = new AtomicBoolean(true);
    /** How often the shipper asked whether it leads: it asks once at the start of every round. */
    private final AtomicInteger asked = new AtomicInteger();

    private SiteShipping shipping(boolean takes) {
        return new SiteShipping(
                "node-2",
                (Message message, String what) -> {
                    Shipped shipped = (Shipped) message;
                    appended.add(shipped);
                    if (takes) {
                        positions.accept(shipped);
                    }
                    return CompletableFuture.completedFuture(null);
                },
                () -> {
                    asked.incrementAndGet();
                    return leads.get();
                },
                positions);
    }

    private static byte[] writeSet(long txn) {
        return WireCodec.encode(new WriteSet(txn, "node-1", "payment", new long[0], -1, List.of()));
    }

    private static void feed(SiteShipping.Follower eu, byte[]... entries) {
        for (byte[] entry : entries) {
            eu.apply(entry, 0, entry.length, false);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(10), condition);
    }

    /**
     * A fence through the shipper's loop: returns once a round that began after this call has ended (the round after it
     * has asked whether it leads), so whatever that round would ship has been appended.
     */
    private void awaitAFullRound() throws InterruptedException {
        int before = asked.get();
        await(() -> asked.get() >= before + 2, "a full round of the shipper");
    }

    /** Only the origin's own write-sets are shipped, each naming its place and the previous one's; marks are not. */
    @Test
    void theLeaderShipsTheOriginsWriteSetsInItsOrder() throws Exception {
        try (SiteShipping shipping = shipping(true)) {
            SiteShipping.Follower eu = shipping.follower("eu");
            shipping.start();
            byte[] mark = WireCodec.encode(new LogMark("node-1", 7));
            feed(eu, writeSet(11), mark, writeSet(12), mark, writeSet(13));
            await(() -> positions.through("eu") == 5, "entries 1, 3 and 5 taken: " + appended);
            assertEquals(
                    List.of(0L, 1L, 3L),
                    appended.stream().map(Shipped::previous).toList());
            assertEquals(
                    List.of(1L, 3L, 5L), appended.stream().map(Shipped::index).toList());
            await(() -> shipping.waiting("eu") == 0, "what was taken is no longer kept");
        }
    }

    /** A node that does not lead its site's log ships nothing; once it leads, it ships from what the log took. */
    @Test
    void aNodeShipsOnlyWhileItLeadsAndThenFromWhatTheLogTook() throws Exception {
        leads.set(false);
        try (SiteShipping shipping = shipping(true)) {
            SiteShipping.Follower eu = shipping.follower("eu");
            shipping.start();
            feed(eu, writeSet(11), writeSet(12), writeSet(13));
            // The leader elsewhere shipped entry 1: this node's log took it.
            positions.accept(new Shipped("eu", 0, 1, WireCodec.decode(writeSet(11))));
            awaitAFullRound();
            assertEquals(List.of(), appended, "not the leader");
            leads.set(true);
            await(() -> positions.through("eu") == 3, "the new leader ships 2 and 3: " + appended);
            assertEquals(List.of(2L, 3L), appended.stream().map(Shipped::index).toList());
        }
    }

    /** Appends that the log never takes (lost in a change of leader) are shipped again after the stall timeout. */
    @Test
    void whatTheLogNeverTookIsShippedAgain() throws Exception {
        try (SiteShipping shipping = shipping(false)) {
            SiteShipping.Follower eu = shipping.follower("eu");
            shipping.start();
            feed(eu, writeSet(11));
            await(() -> appended.size() == 2, "shipped again after " + SiteShipping.STALL_NANOS / 1_000_000 + " ms");
            assertEquals(appended.get(0), appended.get(1));
        }
    }
}
