package org.gargamel.frontend.session;

import java.util.concurrent.CompletableFuture;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.wire.CallOutcome;

/**
 * Where the sessions' calls go: each connection opens one library session (read-your-writes, docs/protocol.md,
 * Sessions) with its first call. The front end's is its {@link GargamelClient}; a unit test gives outcomes of its own.
 */
@FunctionalInterface
public interface CallSessions {
    /** A new session; its calls see the writes acknowledged to it. */
    CallSession open();

    /** One connection's calls, in submission order. */
    @FunctionalInterface
    interface CallSession {
        CompletableFuture<CallOutcome> submit(ProcedureCall call);
    }

    /** The sessions of {@code client}. */
    static CallSessions of(GargamelClient client) {
        return () -> client.openSession()::submit;
    }
}
