package org.gargamel.node.execution;

import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.Execute;

/**
 * How a call ends at this node: its transaction becomes visible here (its dependents may start; the scheduler hears),
 * and its client gets the outcome. A PSI call is visible at once but answered only once its write-set is committed in
 * the log, so the two can happen apart.
 */
public interface CallCompletion {
    /** Marks the call's transaction visible here and reports it to the scheduler. */
    void visible(Execute call);

    /**
     * Marks the call's transaction visible here only, so that calls here that depend on it may start; the scheduler
     * hears of it with the outcome ({@link #finish}), once the log holds it: until then, were this node to die, the
     * transaction would be among those the survivors settle.
     */
    void visibleHere(Execute call);

    /** Sends {@code outcome} to the call's client. */
    void reply(Execute call, CallOutcome outcome);

    /** The node cannot go on (an append the log did not take): it stops. */
    void fail(Throwable reason);

    /** Both at once: visible here, and the outcome to the client. */
    default void finish(Execute call, CallOutcome outcome) {
        visible(call);
        reply(call, outcome);
    }
}
