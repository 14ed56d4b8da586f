package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Supervisor;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.tpcc.TpccRules;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's loop is supervised: an event that throws is fatal. The failure is logged at ERROR naming the event,
 * {@link SchedulerServer#failure()} completes with it, the loop processes nothing more, and new calls are rejected
 * instead of waiting for a loop that will never run them. Bad messages are dropped and counted, not fatal.
 */
@Tag("cluster")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SchedulerServerFailureTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger supervisorLogger = (Logger) LoggerFactory.getLogger(Supervisor.class);

    @BeforeEach
    void captureTheSupervisorsLog() {
        log.start();
        supervisorLogger.addAppender(log);
    }

    @AfterEach
    void stopCapturing() {
        supervisorLogger.detachAppender(log);
    }

    private static SchedulerServer started() throws Exception {
        SchedulerServer server = new SchedulerServer(new SchedulerConfig(
                GroupSettings.inMemory(), Mode.GARGAMEL, Isolation.PSI, TpccRules.temporaryFile(), 1_000));
        try {
            server.start();
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    @Test
    void anEventThatThrowsIsFatalAndTheLoopProcessesNothingAfterIt() throws Exception {
        try (SchedulerServer server = started()) {
            AtomicInteger before = new AtomicInteger();
            AtomicInteger after = new AtomicInteger();
            server.runOnLoop("test event before", before::incrementAndGet);
            server.runOnLoop("test event that throws", () -> {
                throw new IllegalStateException("the graph lost transaction 17");
            });
            server.runOnLoop("test event after", after::incrementAndGet);

            Throwable reason = server.failure().get(20, TimeUnit.SECONDS);
            FatalException fatal = assertInstanceOf(FatalException.class, reason);
            assertEquals(
                    "scheduler-loop: test event that throws failed: java.lang.IllegalStateException: "
                            + "the graph lost transaction 17",
                    fatal.getMessage());
            assertInstanceOf(IllegalStateException.class, fatal.getCause());

            Await.until("the loop thread to end", WAIT, () -> !server.loopAlive());
            assertEquals(1, before.get(), "the event queued before ran");
            assertEquals(0, after.get(), "the loop has ended: the event queued after the failure never runs");

            List<ILoggingEvent> errors = log.list.stream()
                    .filter(event -> event.getLevel() == Level.ERROR)
                    .toList();
            assertEquals(1, errors.size(), "one ERROR line: " + log.list);
            assertTrue(
                    errors.get(0).getFormattedMessage().contains("test event that throws failed"),
                    errors.get(0).getFormattedMessage());
            assertSame(
                    reason,
                    ((ch.qos.logback.classic.spi.ThrowableProxy) errors.get(0).getThrowableProxy()).getThrowable(),
                    "logged with the throwable");
        }
    }

    @Test
    void anErrorInAnEventIsFatalToo() throws Exception {
        try (SchedulerServer server = started()) {
            server.runOnLoop("test event", () -> {
                throw new OutOfMemoryError("simulated");
            });
            Throwable reason = server.failure().get(20, TimeUnit.SECONDS);
            assertTrue(
                    reason.getMessage().startsWith("scheduler-loop: test event failed: java.lang.OutOfMemoryError"),
                    reason.getMessage());
            Await.until("the loop thread to end", WAIT, () -> !server.loopAlive());
        }
    }

    @Test
    void afterAFailureCallsAreRejectedAtOnceNamingIt() throws Exception {
        try (SchedulerServer server = started();
                GargamelClient client = GargamelClient.connect(
                        GroupConfig.inMemory(), new ClientOptions(10, Duration.ofSeconds(40), WAIT))) {
            ProcedureCall delivery = ProcedureCall.of("delivery", 1, 1, LocalDateTime.of(2026, 1, 1, 0, 0));
            CallOutcome running = client.submit(delivery).get(40, TimeUnit.SECONDS); // held 15 s for a node first
            assertEquals(CallOutcome.Status.REJECTED, running.status());
            assertTrue(running.message().contains("no node has joined"), "the loop answered: " + running.message());

            server.runOnLoop("test event that throws", () -> {
                throw new IllegalStateException("bug");
            });
            server.failure().get(20, TimeUnit.SECONDS);
            CallOutcome failed = client.submit(delivery).get(20, TimeUnit.SECONDS);
            assertEquals(CallOutcome.Status.REJECTED, failed.status());
            assertEquals(
                    "the scheduler has failed (see its log) and is stopping; delivery was not scheduled",
                    failed.message());
            Await.until("the loop thread to end", WAIT, () -> !server.loopAlive());
        }
    }

    @Test
    void malformedAndUnexpectedMessagesAreCountedAndDroppedNotFatal() throws Exception {
        try (SchedulerServer server = started();
                JChannel prober = Channels.control(GroupConfig.inMemory(), "prober")) {
            prober.connect(Channels.CONTROL_CLUSTER);
            prober.send(new BytesMessage(server.address(), new byte[] {42, 0}));
            MessageEndpoint.send(prober, server.address(), CallOutcome.committed(1, 1, "not for a scheduler"));
            Await.until(
                    "the scheduler to count both",
                    WAIT,
                    () -> server.malformedCount() == 1 && server.unexpectedCount() == 1,
                    () -> server.malformedCount() + " malformed, " + server.unexpectedCount() + " unexpected");
            AtomicInteger ran = new AtomicInteger();
            server.runOnLoop("test event", ran::incrementAndGet);
            Await.until("the loop to go on", WAIT, () -> ran.get() == 1);
            assertFalse(server.failure().isDone(), "dropping a message is not a failure");
        }
    }

    @Test
    void closeStopsTheLoopWithoutAFailure() throws Exception {
        SchedulerServer server = started();
        AtomicInteger ran = new AtomicInteger();
        server.runOnLoop("test event", ran::incrementAndGet);
        Await.until("the loop to run an event", WAIT, () -> ran.get() == 1);
        long start = System.nanoTime();
        server.close();
        assertFalse(server.loopAlive(), "close() waited for the loop");
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "within the bounded wait");
        assertFalse(server.failure().isDone(), "stopping is not a failure");
        server.close(); // idempotent
    }
}
