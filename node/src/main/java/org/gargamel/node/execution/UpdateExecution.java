package org.gargamel.node.execution;

import org.gargamel.common.wire.Execute;

/**
 * How a worker runs an update call: {@link ScheduledExecution} (gargamel and centralized modes: the scheduler ordered
 * every conflicting call before this one) or {@link CertifiedExecution} (round-robin: run concurrently, certify).
 * A strategy gives the call its outcome on every expected path, procedure errors included; anything it throws is
 * unexpected and reaches the {@link Worker}'s supervision.
 */
interface UpdateExecution {
    void execute(Execute call, WorkerConnection connection, CallAttempt attempt) throws InterruptedException;
}
