package org.gargamel.common.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.jgroups.JChannel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A client never founds a group of its own: it finds a scheduler that comes up later, or fails clearly. */
@Tag("integration")
class GargamelClientConnectTest {
    private static final ClientOptions OPTIONS = new ClientOptions(100, Duration.ofSeconds(5), Duration.ofSeconds(20));

    @Test
    void aClientStartedBeforeTheSchedulerJoinsItsGroupOnceItIsUp() throws Exception {
        CompletableFuture<GargamelClient> connecting = CompletableFuture.supplyAsync(() -> {
            try {
                return GargamelClient.connect(GroupConfig.inMemory(), OPTIONS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(2_500);  // the client finds nobody, founds a group alone, leaves it, and looks again
        try (JChannel scheduler = Channels.control(GroupConfig.inMemory(), GargamelClient.SCHEDULER_NAME)) {
            scheduler.connect(Channels.CONTROL_CLUSTER);
            try (GargamelClient client = connecting.get(20, TimeUnit.SECONDS)) {
                assertEquals(scheduler.getAddress(), scheduler.getView().getCoord(),
                        "the scheduler founded the group the client then joined: " + scheduler.getView());
                assertEquals(2, scheduler.getView().size(), scheduler.getView().toString());
            }
        }
    }

    @Test
    void withoutASchedulerConnectFailsAfterTheTimeoutNamingTheProblem() {
        ClientOptions quick = new ClientOptions(100, Duration.ofSeconds(5), Duration.ofSeconds(3));
        long start = System.nanoTime();
        GargamelClientException error = assertThrows(GargamelClientException.class,
                () -> GargamelClient.connect(GroupConfig.inMemory(), quick));
        assertTrue(error.getMessage().contains("no scheduler joined the group within 3 s"), error.getMessage());
        assertTrue(System.nanoTime() - start >= Duration.ofSeconds(3).toNanos(), "it kept looking until the timeout");
    }
}
