package org.gargamel.common.client;

/**
 * Why a call got no outcome from Gargamel: overload (too many calls in flight, nothing was sent), a timeout (the
 * outcome is unknown: the call may still commit), or the scheduler gone (the outcome of pending calls is unknown).
 */
public class GargamelClientException extends RuntimeException {
    public enum Reason {
        OVERLOADED,
        TIMED_OUT,
        DISCONNECTED
    }

    private final Reason reason;

    public GargamelClientException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
