package org.gargamel.node.transfer;

import org.gargamel.common.lifecycle.FatalException;

/**
 * This replica holds what the other replicas do not (a transaction it committed that the write-set log settled as
 * abandoned): it must not serve. Its database is marked, and the next start rebuilds it from a peer
 * ({@link StateTransfer}) before anything else.
 */
public final class TaintedReplicaException extends FatalException {
    private static final long serialVersionUID = 1L;

    public TaintedReplicaException(String message) {
        super(message);
    }

    /** Whether {@code failure} or one of its causes is a tainted replica. */
    public static boolean isCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TaintedReplicaException) {
                return true;
            }
        }
        return false;
    }
}
