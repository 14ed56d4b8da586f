package org.gargamel.node.execution;

import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;

/** How a call ends at this node: its transaction becomes visible here, its client gets the outcome, the scheduler hears. */
public interface CallCompletion {
    /** Marks the call's transaction visible here, replies {@code outcome} to its client and reports it to the scheduler. */
    void finish(Execute call, CallOutcome outcome);
}
