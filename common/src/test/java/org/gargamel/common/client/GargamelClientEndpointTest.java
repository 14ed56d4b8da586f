package org.gargamel.common.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.MessageType;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.SubmitCall;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client against a scripted scheduler (a bare channel named {@code scheduler}, in memory): it drops what does not
 * decode or is not for a client and goes on; each call completes once; and when one of its own handlers throws, it
 * closes itself, failing every pending and later call with the reason.
 */
@Tag("cluster")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GargamelClientEndpointTest {
    private static final ClusterProfile PROFILE =
            new ClusterProfile(Mode.GARGAMEL, Isolation.PSI, "rules-digest", "schema-digest");

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ClientOptions OPTIONS = new ClientOptions(100, Duration.ofSeconds(30), WAIT);

    private final List<SubmitCall> submitted = new CopyOnWriteArrayList<>();
    private final List<Address> submitters = new CopyOnWriteArrayList<>();
    private JChannel scheduler;

    @BeforeEach
    void startAScriptedScheduler() throws Exception {
        scheduler = Channels.control(GroupConfig.inMemory(), GargamelClient.SCHEDULER_NAME);
        scheduler.setReceiver(new MessageEndpoint("scripted scheduler", error -> {})
                .on(SubmitCall.class, MessageType.SUBMIT_CALL, (source, submit) -> {
                    submitters.add(source);
                    submitted.add(submit);
                }));
        scheduler.connect(Channels.CONTROL_CLUSTER);
    }

    @AfterEach
    void stopIt() {
        scheduler.close();
    }

    private void send(Address client, byte[] bytes) throws Exception {
        scheduler.send(new BytesMessage(client, bytes));
    }

    @Test
    void malformedAndUnexpectedMessagesAreDroppedAndEachCallCompletesOnce() throws Exception {
        try (GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), OPTIONS)) {
            CompletableFuture<CallOutcome> first = client.submit(ProcedureCall.of("payment", 1));
            CompletableFuture<CallOutcome> second = client.submit(ProcedureCall.of("delivery", 2));
            Await.until("both calls to reach the scheduler", WAIT, () -> submitted.size() == 2, submitted::toString);
            Address address = submitters.get(0);

            send(address, new byte[] {99, 1, 2});
            MessageEndpoint.send(scheduler, address, new NodeHello("node-1", 2, true, PROFILE));
            MessageEndpoint.send(
                    scheduler, address, CallOutcome.committed(submitted.get(0).callId(), 1, "ok"));
            MessageEndpoint.send(
                    scheduler, address, CallOutcome.committed(submitted.get(0).callId(), 1, "again"));
            MessageEndpoint.send(
                    scheduler, address, CallOutcome.rejected(submitted.get(1).callId(), -1, "no"));

            assertEquals("ok", first.get(20, TimeUnit.SECONDS).result(), "the first outcome wins; the copy is ignored");
            assertEquals(
                    CallOutcome.Status.REJECTED,
                    second.get(20, TimeUnit.SECONDS).status());
            Await.until(
                    "the client to count what it dropped",
                    WAIT,
                    () -> client.malformedCount() == 1 && client.unexpectedCount() == 1,
                    () -> client.malformedCount() + " malformed, " + client.unexpectedCount() + " unexpected");
            assertEquals(0, client.inFlight());
        }
    }

    /**
     * A session sends its last acknowledged update with each call; read-only commits, user aborts and rejections leave
     * it as it was; another session and the client's default session have their own.
     */
    @Test
    void aSessionSendsItsLastAcknowledgedWriteWithEachCall() throws Exception {
        try (GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), OPTIONS)) {
            ClientSession session = client.openSession();
            ClientSession other = client.openSession();
            long[] afters = {
                answer(session, CallOutcome.committed(0, 7, "w")),
                answer(session, CallOutcome.committedReadOnly(0, 8, "r")),
                answer(session, CallOutcome.userAborted(0, 9, "GA001", "no")),
                answer(session, CallOutcome.rejected(0, -1, "no")),
                answer(session, CallOutcome.committed(0, 10, "w")),
                answer(session, CallOutcome.committed(0, 11, "w")),
                answer(other, CallOutcome.committed(0, 12, "w")),
                answer(other, CallOutcome.committed(0, 13, "w")),
            };
            assertArrayEquals(new long[] {0, 7, 7, 7, 7, 10, 0, 12}, afters, "each call's after, as sent");
            assertEquals(11, session.lastWrite());
            assertEquals(13, other.lastWrite());
            CompletableFuture<CallOutcome> unanswered = client.submit(ProcedureCall.of("payment", 1));
            assertFalse(unanswered.isDone());
            Await.until("the default session's call", WAIT, () -> submitted.size() == afters.length + 1);
            assertEquals(0, submitted.get(afters.length).after(), "the default session is a session of its own");
        }
    }

    /** Makes one call in {@code session}, answers it with {@code answer} (its call id set); returns the call's after. */
    private long answer(ClientSession session, CallOutcome answer) throws Exception {
        int before = submitted.size();
        CompletableFuture<CallOutcome> outcome = session.submit(ProcedureCall.of("payment", 1));
        Await.until("the call to reach the scheduler", WAIT, () -> submitted.size() == before + 1);
        SubmitCall call = submitted.get(before);
        MessageEndpoint.send(
                scheduler,
                submitters.get(before),
                new CallOutcome(
                        call.callId(),
                        answer.txnId(),
                        answer.status(),
                        answer.result(),
                        answer.sqlState(),
                        answer.message(),
                        answer.wrote()));
        outcome.get(20, TimeUnit.SECONDS);
        return call.after();
    }

    @Test
    void aHandlerThatThrowsClosesTheClientAndFailsEveryCallWithTheReason() throws Exception {
        try (GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), OPTIONS)) {
            CompletableFuture<CallOutcome> first = client.submit(ProcedureCall.of("payment", 1));
            CompletableFuture<CallOutcome> second = client.submit(ProcedureCall.of("delivery", 2));
            Await.until("both calls to reach the scheduler", WAIT, () -> submitted.size() == 2, submitted::toString);
            assertEquals(2, scheduler.getView().size());

            client.endpoint().viewAccepted(null); // the view handler throws a NullPointerException

            for (CompletableFuture<CallOutcome> pending : List.of(first, second)) {
                GargamelClientException failure = failure(pending);
                assertEquals(GargamelClientException.Reason.DISCONNECTED, failure.reason());
                assertTrue(
                        failure.getMessage()
                                .startsWith("the client failed and closed itself (" + client.name()
                                        + ": handling view null failed: java.lang.NullPointerException"),
                        failure.getMessage());
                assertTrue(failure.getMessage().contains("the outcome of call"), failure.getMessage());
            }
            GargamelClientException later = failure(client.submit(ProcedureCall.of("payment", 3)));
            assertEquals(GargamelClientException.Reason.DISCONNECTED, later.reason());
            assertTrue(
                    later.getMessage().startsWith("the client failed and closed itself")
                            && later.getMessage().endsWith("; payment was not sent"),
                    later.getMessage());
            Await.until(
                    "the client to leave the group",
                    WAIT,
                    () -> scheduler.getView().size() == 1,
                    () -> scheduler.getView());
            assertEquals(2, submitted.size(), "nothing more was sent");
            assertEquals(0, client.inFlight());
        }
    }

    /**
     * Scheduler failover through a merge (docs/protocol.md): a merged view lists members sorted by address, so a
     * superseded scheduler can come first for a moment, and the client goes from the active scheduler to it and back.
     * The active one, in sight all along, has the pending call already: a second copy could run beside the first, so
     * it does not get one. A scheduler that left the view and came back may have missed it, and gets it again.
     */
    @Test
    void aPendingCallGoesOnceToEachSchedulerThatStaysInSight() throws Exception {
        try (GargamelClient client = GargamelClient.connect(GroupConfig.inMemory(), OPTIONS)) {
            CompletableFuture<CallOutcome> pending = client.submit(ProcedureCall.of("payment", 1));
            Await.until("the call to reach the scheduler", WAIT, () -> submitted.size() == 1, submitted::toString);
            Address active = scheduler.getAddress();
            Address self = submitters.get(0);
            Address old = org.jgroups.util.UUID.randomUUID();
            org.jgroups.util.NameCache.add(old, GargamelClient.SCHEDULER_NAME);

            client.endpoint().viewAccepted(org.jgroups.View.create(old, 10, old, active, self)); // the merge
            client.endpoint().viewAccepted(org.jgroups.View.create(active, 11, active, self)); // the old one left
            CompletableFuture<CallOutcome> second = client.submit(ProcedureCall.of("delivery", 2));
            // Sent after any copy of call 1 to the same member, and the group's unicasts keep their order.
            Await.until("the second call", WAIT, () -> submitted.size() >= 2, submitted::toString);
            assertEquals(List.of(1L, 2L), callIds(), "call 1 was not sent twice to the scheduler it never lost");
            MessageEndpoint.send(scheduler, self, CallOutcome.committed(2, 2, "done"));
            assertEquals("done", second.get(20, TimeUnit.SECONDS).result());

            client.endpoint().viewAccepted(org.jgroups.View.create(self, 12, self)); // out of sight: it may not have it
            client.endpoint().viewAccepted(org.jgroups.View.create(active, 13, active, self));
            Await.until("call 1 again", WAIT, () -> submitted.size() >= 3, submitted::toString);
            assertEquals(List.of(1L, 2L, 1L), callIds());
            MessageEndpoint.send(scheduler, self, CallOutcome.committed(1, 1, "ok"));
            assertEquals("ok", pending.get(20, TimeUnit.SECONDS).result());
        }
    }

    private List<Long> callIds() {
        return submitted.stream().map(SubmitCall::callId).toList();
    }

    private static GargamelClientException failure(CompletableFuture<CallOutcome> future) throws Exception {
        try {
            CallOutcome outcome = future.get(20, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + outcome);
        } catch (ExecutionException e) {
            return assertInstanceOf(GargamelClientException.class, e.getCause());
        }
    }
}
