package org.gargamel.common.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.lifecycle.FatalException;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.EmptyMessage;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The endpoint every process role receives through, fed JGroups messages directly (no channel): malformed and
 * unexpected messages are counted and dropped, the rest dispatched by type, and a handler that throws reaches the
 * owner's failure handler naming the role, the message and its source.
 */
@Tag("unit")
class MessageEndpointTest {
    private static final Address CLIENT = named("client-7f3a");
    private static final Address NODE = named("node-2");

    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<String> handled = new ArrayList<>();

    private static Address named(String name) {
        Address address = UUID.randomUUID();
        NameCache.add(address, name);
        return address;
    }

    private static org.jgroups.Message from(Address source, byte[] bytes) {
        return new BytesMessage(null, bytes).setSrc(source);
    }

    private static org.jgroups.Message from(Address source, Message message) {
        return from(source, WireCodec.encode(message));
    }

    private MessageEndpoint schedulerLike() {
        return new MessageEndpoint("scheduler", failures::add)
                .on(
                        SubmitCall.class,
                        MessageType.SUBMIT_CALL,
                        (source, submit) -> handled.add(submit.describe() + " from " + source))
                .on(Progress.class, MessageType.PROGRESS, (source, progress) -> handled.add(progress.describe()));
    }

    @Test
    void wellFormedMessagesReachTheHandlerOfTheirType() {
        MessageEndpoint endpoint = schedulerLike();
        endpoint.receive(from(CLIENT, new SubmitCall(42, ProcedureCall.of("payment", 1, 2))));
        endpoint.receive(from(NODE, new Progress("node-2", new long[] {3, 4})));
        assertEquals(
                List.of("SUBMIT_CALL call 42 (payment) from client-7f3a", "PROGRESS from node-2 (2 transactions)"),
                handled);
        assertEquals(0, endpoint.malformedCount());
        assertEquals(0, endpoint.unexpectedCount());
        assertEquals(List.of(), failures);
    }

    @Test
    void malformedBytesAreCountedAndDropped() {
        MessageEndpoint endpoint = schedulerLike();
        byte[] valid = WireCodec.encode(new SubmitCall(1, ProcedureCall.of("payment", 1)));
        endpoint.receive(from(CLIENT, new byte[] {99}));
        endpoint.receive(from(CLIENT, java.util.Arrays.copyOf(valid, valid.length - 2)));
        endpoint.receive(from(CLIENT, new byte[0]));
        endpoint.receive(new EmptyMessage(null).setSrc(CLIENT));
        assertEquals(4, endpoint.malformedCount(), "unknown tag, truncated, empty, no payload at all");
        assertEquals(0, endpoint.unexpectedCount());
        assertEquals(List.of(), handled, "nothing malformed is dispatched");
        assertEquals(List.of(), failures, "a malformed message is not a failure of the receiver");
        endpoint.receive(from(CLIENT, valid));
        assertEquals(1, handled.size(), "the endpoint goes on after dropping them");
    }

    @Test
    void aTypeThisRoleDoesNotHandleIsCountedAsUnexpected() {
        MessageEndpoint endpoint = schedulerLike();
        endpoint.receive(from(NODE, CallOutcome.committed(5, 9, "ok")));
        endpoint.receive(from(NODE, new DrainStatus(1, 0, 3)));
        assertEquals(2, endpoint.unexpectedCount());
        assertEquals(0, endpoint.malformedCount());
        assertEquals(List.of(), handled);
        assertEquals(List.of(), failures);
    }

    @Test
    void aHandlerThatThrowsReachesOnFailureNamingTheMessageAndItsSource() {
        IllegalStateException bug = new IllegalStateException("index out of sync");
        MessageEndpoint endpoint = new MessageEndpoint("scheduler", failures::add)
                .on(SubmitCall.class, MessageType.SUBMIT_CALL, (source, submit) -> {
                    if (submit.callId() == 42) {
                        throw bug;
                    }
                    handled.add(submit.describe());
                });
        endpoint.receive(from(CLIENT, new SubmitCall(42, ProcedureCall.of("new_order", 1))));
        assertEquals(1, failures.size());
        FatalException failure = assertInstanceOf(FatalException.class, failures.get(0));
        assertSame(bug, failure.getCause());
        assertEquals(
                "scheduler: handling SUBMIT_CALL call 42 (new_order) from client-7f3a failed: "
                        + "java.lang.IllegalStateException: index out of sync",
                failure.getMessage());
        endpoint.receive(from(CLIENT, new SubmitCall(43, ProcedureCall.of("new_order", 1))));
        assertEquals(List.of("SUBMIT_CALL call 43 (new_order)"), handled, "the endpoint itself goes on");
        assertEquals(0, endpoint.malformedCount() + endpoint.unexpectedCount(), "a failure is not a dropped message");
    }

    @Test
    void anErrorInAHandlerIsReportedToo() {
        MessageEndpoint endpoint = new MessageEndpoint("node-1 control", failures::add)
                .on(Execute.class, MessageType.EXECUTE, (source, execute) -> {
                    throw new StackOverflowError("deep");
                });
        endpoint.receive(
                from(CLIENT, new Execute(7, 0, false, new long[0], CLIENT, 3, ProcedureCall.of("delivery", 1))));
        assertEquals(1, failures.size());
        assertTrue(
                failures.get(0)
                        .getMessage()
                        .startsWith("node-1 control: handling EXECUTE transaction 7 (call 3, "
                                + "delivery, worker 0) from client-7f3a failed: java.lang.StackOverflowError"),
                failures.get(0).getMessage());
        assertInstanceOf(StackOverflowError.class, failures.get(0).getCause());
    }

    @Test
    void aViewHandlerThatThrowsReachesOnFailureNamingTheView() {
        View view = View.create(NODE, 4, NODE, CLIENT);
        MessageEndpoint endpoint = new MessageEndpoint("client-7f3a", failures::add).onView(changed -> {
            throw new NullPointerException("no coordinator");
        });
        endpoint.viewAccepted(view);
        assertEquals(1, failures.size());
        String message = failures.get(0).getMessage();
        assertTrue(
                message.startsWith("client-7f3a: handling view [node-2|4] (2) [node-2, client-7f3a] failed: "
                        + "java.lang.NullPointerException: no coordinator"),
                message);
        assertInstanceOf(NullPointerException.class, failures.get(0).getCause());
    }

    @Test
    void aFailureHandlerThatThrowsDoesNotEscapeToJgroups() {
        MessageEndpoint endpoint = new MessageEndpoint("scheduler", failure -> {
                    failures.add(failure);
                    throw new IllegalStateException("supervisor broken");
                })
                .on(SubmitCall.class, MessageType.SUBMIT_CALL, (source, submit) -> {
                    throw new IllegalArgumentException("bug");
                })
                .onView(view -> {
                    throw new IllegalArgumentException("bug");
                });
        // Neither call throws into JGroups' receive thread (which would drop the rest of a batch silently).
        endpoint.receive(from(CLIENT, new SubmitCall(1, ProcedureCall.of("payment"))));
        endpoint.viewAccepted(View.create(NODE, 1, NODE));
        assertEquals(2, failures.size(), "both reached the failure handler, which threw; logged instead");
    }

    @Test
    void registrationsAreCheckedOnce() {
        MessageEndpoint endpoint = schedulerLike();
        IllegalStateException twice = assertThrows(
                IllegalStateException.class,
                () -> endpoint.on(SubmitCall.class, MessageType.SUBMIT_CALL, (source, submit) -> {}));
        assertEquals("scheduler: two handlers for SUBMIT_CALL", twice.getMessage());
        IllegalArgumentException mismatch = assertThrows(
                IllegalArgumentException.class,
                () -> endpoint.on(NodeHello.class, MessageType.DRAIN_QUERY, (source, hello) -> {}));
        assertEquals("scheduler: DRAIN_QUERY decodes to DrainQuery, not NodeHello", mismatch.getMessage());
    }

    @Test
    void everyMessageTypeNamesTheRecordItDecodesTo() {
        for (Message message : WireCodecTest.oneOfEach()) {
            assertSame(
                    message.type().messageClass(),
                    message.getClass(),
                    message.type().toString());
            assertTrue(message.describe().startsWith(message.type().name()), message.describe());
        }
    }
}
