package org.gargamel.launcher.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientSession;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.node.NodeServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Sessions read their own writes (docs/protocol.md, Sessions) through the real scheduler and three nodes on embedded
 * PostgreSQL replicas: several sessions at once each deposit into an account of their own and read its balance at
 * once with a read-only call, which the scheduler places on the least-loaded worker, usually on another replica than
 * the deposit's. Every read returns the balance the deposit returned. Without sessions (every call submitted with no
 * transaction to wait for), 341 (PSI), 236 (SI) and 128 (round-robin) of the 480 reads returned a balance from before
 * the session's deposit.
 */
@Tag("integration")
class SessionReadYourWritesTest {
    private static final int SESSIONS = 6;
    private static final int ROUNDS = 80;
    private static final long TIMEOUT_SECONDS = 60;
    private static AccountsReplicas accounts;

    @BeforeAll
    static void startReplicas() {
        accounts = new AccountsReplicas();
    }

    @AfterAll
    static void stopReplicas() {
        if (accounts != null) {
            accounts.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"gargamel, psi", "gargamel, si", "round-robin, psi"})
    void everySessionReadsItsOwnDepositOnWhicheverReplicaTheReadRuns(
            String mode, String isolation, @TempDir Path directory) throws Exception {
        accounts.reset();
        ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
        try (InProcessGargamel gargamel = new InProcessGargamel(
                mode, isolation, accounts.servers.jdbcUrls(), 2, AccountsReplicas.rules(directory, true))) {
            ExecutorService sessions = Executors.newFixedThreadPool(SESSIONS);
            try {
                List<Future<Long>> done = new ArrayList<>();
                for (int s = 0; s < SESSIONS; s++) {
                    int account = 1 + s;
                    ClientSession session = gargamel.client.openSession();
                    done.add(sessions.submit(() -> depositAndRead(session, account, stale)));
                }
                for (Future<Long> future : done) {
                    long lastWrite = future.get(TIMEOUT_SECONDS * 4, TimeUnit.SECONDS);
                    assertTrue(lastWrite > 0, "a session that committed deposits knows its last write");
                }
            } finally {
                sessions.shutdownNow();
            }
            gargamel.client.awaitQuiescence(Duration.ofSeconds(TIMEOUT_SECONDS));
            for (NodeServer node : gargamel.nodes) {
                assertFalse(
                        node.failure().isDone(),
                        node.name() + " stopped: " + node.failure().getNow(null));
            }
        }
        assertEquals(List.of(), List.copyOf(stale), "reads that missed their session's own deposit");
        String expected =
                new BigDecimal("100.00").add(new BigDecimal(ROUNDS)).setScale(2).toPlainString();
        for (int replica = 0; replica < AccountsReplicas.REPLICAS; replica++) {
            for (int s = 0; s < SESSIONS; s++) {
                assertEquals(expected, accounts.balance(replica, 1 + s), "replica " + replica + ", account " + (1 + s));
            }
        }
        accounts.assertConverged();
    }

    /** {@link #ROUNDS} deposits of 1.00, each followed at once by a read; returns the session's last write. */
    private static long depositAndRead(ClientSession session, int account, ConcurrentLinkedQueue<String> stale)
            throws InterruptedException {
        for (int round = 0; round < ROUNDS; round++) {
            CallOutcome deposited = session.call(ProcedureCall.of("deposit", account, new BigDecimal("1.00")));
            assertEquals(CallOutcome.Status.COMMITTED, deposited.status(), deposited.toString());
            assertTrue(deposited.wrote(), "a committed deposit is a write: " + deposited);
            assertEquals(deposited.txnId(), session.lastWrite(), "the session waits for its deposit next");
            CallOutcome read = session.call(ProcedureCall.of("balance", account));
            assertEquals(CallOutcome.Status.COMMITTED, read.status(), read.toString());
            assertFalse(read.wrote(), "a read-only call is no write: " + read);
            if (new BigDecimal(read.result()).compareTo(new BigDecimal(deposited.result())) != 0) {
                stale.add(
                        "account " + account + ": deposit returned " + deposited.result() + ", read " + read.result());
            }
        }
        return session.lastWrite();
    }
}
