package org.gargamel.bank.workload;

import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;

/**
 * Sends one call and waits for its one outcome: the cluster's client ({@code GargamelClient::call}). A failure to get
 * an outcome (rejected by the client, timed out, lost connection) is a {@code RuntimeException}.
 */
@FunctionalInterface
public interface CallSender {
    CallOutcome send(ProcedureCall call) throws InterruptedException;
}
