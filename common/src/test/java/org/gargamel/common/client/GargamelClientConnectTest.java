package org.gargamel.common.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.testing.Await;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.util.AsciiString;
import org.jgroups.util.NameCache;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A client never founds a group of its own: it finds a scheduler that comes up later, or fails clearly. */
@Tag("integration")
class GargamelClientConnectTest {
    private static final ClientOptions OPTIONS = new ClientOptions(100, Duration.ofSeconds(5), Duration.ofSeconds(20));

    @Test
    void aClientStartedBeforeTheSchedulerJoinsItsGroupOnceItIsUp() throws Exception {
        ControlGroupWatch controlGroup = new ControlGroupWatch();
        CompletableFuture<GargamelClient> connecting = CompletableFuture.supplyAsync(() -> {
            try {
                return GargamelClient.connect(GroupConfig.inMemory(), OPTIONS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (controlGroup;
                JChannel scheduler = Channels.control(GroupConfig.inMemory(), GargamelClient.SCHEDULER_NAME)) {
            // The client finds nobody, founds a group alone, leaves it, and looks again (200 ms later): the scheduler
            // starts in between, so that it founds the group and the client's next attempt joins it.
            Await.until(
                    "a client to found the control group alone and leave it",
                    Duration.ofSeconds(15),
                    controlGroup,
                    controlGroup::toString);
            scheduler.connect(Channels.CONTROL_CLUSTER);
            try (GargamelClient client = connecting.get(20, TimeUnit.SECONDS)) {
                assertEquals(
                        scheduler.getAddress(),
                        scheduler.getView().getCoord(),
                        "the scheduler founded the group the client then joined: " + scheduler.getView());
                assertEquals(2, scheduler.getView().size(), scheduler.getView().toString());
                assertTrue(
                        scheduler.getView().getMembers().stream()
                                .anyMatch(member -> client.name().equals(NameCache.get(member))),
                        client.name() + " is a member of " + scheduler.getView());
            }
        }
    }

    /**
     * Records who joins the in-memory transport's control group and who leaves it. SHARED_LOOPBACK keeps the members
     * of each group in a static table that subclasses see: a channel is added when it connects (the first one of an
     * empty group is its coordinator: it founds the group) and removed when it closes. Polling that table misses a
     * client's few milliseconds alone in its group; recording the table's changes does not.
     */
    private static final class ControlGroupWatch implements BooleanSupplier, AutoCloseable {
        private static final AsciiString CLUSTER = new AsciiString(Channels.CONTROL_CLUSTER);
        private final List<String> events = Collections.synchronizedList(new ArrayList<>());
        private final Map<Address, SHARED_LOOPBACK> members = new HashMap<>() {
            @Override
            public SHARED_LOOPBACK putIfAbsent(Address member, SHARED_LOOPBACK transport) {
                events.add((transport.isCoord() ? "founded by " : "joined by ") + member);
                if (transport.isCoord() && member.toString().startsWith("client-")) {
                    foundingClient = member;
                }
                return super.putIfAbsent(member, transport);
            }

            @Override
            public SHARED_LOOPBACK remove(Object member) {
                SHARED_LOOPBACK removed = super.remove(member);
                if (removed != null) {
                    events.add("left by " + member);
                    clientFoundedAndLeft |= member.equals(foundingClient);
                }
                return removed;
            }
        };
        private volatile Address foundingClient;
        private volatile boolean clientFoundedAndLeft;

        /** Starts recording; the group must be empty (no channel of an earlier test still connected). */
        ControlGroupWatch() {
            Map<AsciiString, Map<Address, SHARED_LOOPBACK>> groups = InMemoryGroups.table();
            synchronized (groups) {
                Map<Address, SHARED_LOOPBACK> existing = groups.putIfAbsent(CLUSTER, members);
                if (existing != null) {
                    throw new IllegalStateException("the in-memory control group is not empty: " + existing.keySet());
                }
            }
        }

        /** True once a client founded the group alone and left it. */
        @Override
        public boolean getAsBoolean() {
            return clientFoundedAndLeft;
        }

        @Override
        public void close() {
            Map<AsciiString, Map<Address, SHARED_LOOPBACK>> groups = InMemoryGroups.table();
            synchronized (groups) {
                groups.remove(CLUSTER, members); // still ours if nobody ever joined
            }
        }

        @Override
        public String toString() {
            return "the control group's changes: " + events;
        }
    }

    /** SHARED_LOOPBACK's members by group (it locks the table itself while it changes it). */
    private abstract static class InMemoryGroups extends SHARED_LOOPBACK {
        static Map<AsciiString, Map<Address, SHARED_LOOPBACK>> table() {
            return routing_table;
        }
    }

    @Test
    void withoutASchedulerConnectFailsAfterTheTimeoutNamingTheProblem() {
        ClientOptions quick = new ClientOptions(100, Duration.ofSeconds(5), Duration.ofSeconds(3));
        long start = System.nanoTime();
        GargamelClientException error = assertThrows(
                GargamelClientException.class, () -> GargamelClient.connect(GroupConfig.inMemory(), quick));
        assertTrue(error.getMessage().contains("no scheduler joined the group within 3 s"), error.getMessage());
        assertTrue(System.nanoTime() - start >= Duration.ofSeconds(3).toNanos(), "it kept looking until the timeout");
    }
}
