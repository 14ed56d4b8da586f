package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.call.SqlErrorKind;
import org.gargamel.common.client.ClientSession;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.client.GargamelClientException;

/**
 * A terminal's calls through Gargamel: submitted with the shared client library, waited for, and mapped to the
 * kit's outcomes. A procedure error is a user abort; a rejection, a timeout or a lost connection is a failure (it
 * counts in {@code errors}, with its reason). Conflict aborts are counted by the nodes, not here. Each terminal is
 * a session of the shared client: it reads its own writes whichever replica runs its next call.
 */
public final class GargamelExecutor implements CallExecutor {
    private final ClientSession session;

    public GargamelExecutor(GargamelClient client) {
        this.session = client.openSession();
    }

    @Override
    public ExecutionOutcome execute(ProcedureCall call) {
        org.gargamel.common.wire.CallOutcome outcome;
        try {
            outcome = session.call(call);
        } catch (GargamelClientException e) {
            return new ExecutionOutcome(
                    ExecutionOutcome.Kind.FAILED, 0, 0, e.reason().name(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ExecutionOutcome(
                    ExecutionOutcome.Kind.FAILED, 0, 0, null, "interrupted while waiting for " + call.procedure());
        }
        return switch (outcome.status()) {
            case COMMITTED -> ExecutionOutcome.committed(0, 0, ExecutionOutcome.firstColumnOf(outcome.result()));
            case USER_ABORTED ->
                new ExecutionOutcome(
                        TpccErrors.classify(outcome.sqlState()) == SqlErrorKind.USER_ABORT
                                ? ExecutionOutcome.Kind.USER_ABORT
                                : ExecutionOutcome.Kind.FAILED,
                        0,
                        0,
                        outcome.sqlState(),
                        outcome.message());
            case REJECTED -> new ExecutionOutcome(ExecutionOutcome.Kind.FAILED, 0, 0, "REJECTED", outcome.message());
        };
    }

    /** The client is shared by every terminal and closed by the cluster. */
    @Override
    public void close() {}
}
