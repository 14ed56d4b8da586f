package org.gargamel.scheduler;

import org.gargamel.common.lifecycle.FatalException;

/**
 * The write-set log made another scheduler active after this one (this one was cut off, not dead): it is never active
 * again and stops, so that it leaves the group and every member follows the active scheduler. Its calls are not
 * answered: their clients resubmit them there. {@code gargamel scheduler} then starts a new scheduler in the same
 * process, which stands by (docs/protocol.md, Scheduler failover).
 */
public final class SupersededException extends FatalException {
    private static final long serialVersionUID = 1L;

    public SupersededException(String message) {
        super(message);
    }

    /** Whether {@code failure} or one of its causes is this scheduler being superseded. */
    public static boolean isCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SupersededException) {
                return true;
            }
        }
        return false;
    }
}
