package org.gargamel.scheduler.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;
import org.gargamel.tpcc.testing.TpccCalls;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node that saw no scheduler for long forgot the reports it held beyond its bound (ProgressReporter), while the
 * scheduler, on the other side of an asymmetric view, still counted it and waited for them: without more, the
 * transactions it awaited from that node stayed in flight for ever. The node's next report says how many it forgot,
 * and the scheduler asks which of the transactions it awaits are visible there (VISIBILITY_QUERY).
 */
@Tag("cluster")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForgottenReportsTest {
    private static final ClientOptions OPTIONS =
            new ClientOptions(10_000, Duration.ofSeconds(30), Duration.ofSeconds(20));
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aNodeThatForgotReportsIsAskedWhatIsVisibleThereAndTheSchedulerQuiesces() throws Exception {
        try (TestCluster cluster = TestCluster.inMemory(2, 2)) {
            FakeNode forgetful = cluster.nodes.get(1);
            forgetful.forgetReports(true);
            GargamelClient client = cluster.readyClient(OPTIONS);
            List<CompletableFuture<CallOutcome>> futures = new ArrayList<>();
            for (int d = 1; d <= 8; d++) {
                futures.add(client.submit(TpccCalls.paymentById(1, d, 1, d, d)));
                futures.add(client.submit(TpccCalls.orderStatus(1, d, d)));
            }
            for (CompletableFuture<CallOutcome> future : futures) {
                assertEquals(
                        CallOutcome.Status.COMMITTED,
                        future.get(20, TimeUnit.SECONDS).status());
            }
            // What the scheduler awaits from the forgetful node: every update, and the read-only calls it ran.
            long[] awaited = LongStream.concat(
                            cluster.bus.executed.keySet().stream().mapToLong(Long::longValue),
                            forgetful.received.stream()
                                    .filter(Execute::readOnly)
                                    .mapToLong(Execute::txnId))
                    .sorted()
                    .toArray();
            assertEquals(8, cluster.bus.executed.size(), "the eight payments ran");
            Await.until(
                    "everything but the forgetful node's reports in",
                    WAIT,
                    () -> inFlight(client) == awaited.length,
                    () -> inFlight(client));

            forgetful.forgetReports(false); // its next report says how many it forgot
            Await.until("quiescence", WAIT, () -> inFlight(client) == 0, () -> inFlight(client));
            assertEquals(1, forgetful.visibilityQueries.size(), forgetful.visibilityQueries.toString());
            assertArrayEquals(awaited, forgetful.visibilityQueries.get(0).transactions(), "exactly what it awaited");
            assertEquals(List.of(), cluster.bus.violations);
        }
    }

    private static long inFlight(GargamelClient client) {
        try {
            return client.drainStatus(Duration.ofSeconds(5)).inFlight();
        } catch (Exception e) {
            return -1;
        }
    }
}
