package org.gargamel.common.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.CallOutcome;

/**
 * A sequence of calls that reads its own writes (docs/protocol.md, Sessions). Any replica may run a call, and a
 * replica applies other replicas' write-sets a little later than they commit; so each call carries the last update
 * transaction the session was told committed, and the scheduler makes it a back-dependency while it is not yet visible
 * everywhere: the call starts only once that write is visible where it runs. Visibility is causal (a write-set applies
 * after its own back-dependencies), so the session's earlier writes are visible there too.
 *
 * <p>Meant for one caller at a time, like a database connection: calls submitted concurrently in one session are not
 * ordered with each other, and each sees at least the writes acknowledged before it was submitted that have the
 * highest transaction id. Thread-safe all the same.
 */
public final class ClientSession {
    private final GargamelClient client;
    /** The session's last acknowledged update transaction, 0 before its first. Ids only grow, across failovers too. */
    private final AtomicLong lastWrite = new AtomicLong();

    ClientSession(GargamelClient client) {
        this.client = client;
    }

    /** Submits a call after the session's acknowledged writes; the future completes exactly once. Never blocks. */
    public CompletableFuture<CallOutcome> submit(ProcedureCall call) {
        // Completed after lastWrite is updated (a caller that waits for it, then calls again, waits for this write),
        // and
        // with the client's own exception, not wrapped as a dependent stage would.
        CompletableFuture<CallOutcome> result = new CompletableFuture<>();
        Futures.whenDone(client.submit(call, lastWrite.get()), (outcome, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
                return;
            }
            if (outcome.status() == CallOutcome.Status.COMMITTED && outcome.wrote()) {
                lastWrite.accumulateAndGet(outcome.txnId(), Math::max);
            }
            result.complete(outcome);
        });
        return result;
    }

    /** Submits and waits for the outcome. */
    public CallOutcome call(ProcedureCall call) throws InterruptedException {
        return GargamelClient.await(submit(call));
    }

    /** The last update transaction this session was told committed; 0 if none. */
    public long lastWrite() {
        return lastWrite.get();
    }
}
