package org.gargamel.node.execution;

/**
 * What the worker must know if a call fails in an unexpected way: whether the call may already have had an effect
 * outside this worker (committed here, or its write-set handed to the total-order broadcast). Before that point a
 * failed call is settled as done with no effect; after it the node cannot know what the cluster holds and stops.
 */
final class CallAttempt {
    private boolean irrevocable;

    /** From here on the call may have committed or been broadcast. */
    void irrevocable() {
        irrevocable = true;
    }

    /** Back to a state known to have no effect anywhere (the transaction was rolled back and, if broadcast, lost). */
    void revocable() {
        irrevocable = false;
    }

    boolean isIrrevocable() {
        return irrevocable;
    }
}
