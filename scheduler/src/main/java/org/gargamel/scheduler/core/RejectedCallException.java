package org.gargamel.scheduler.core;

/** A call the scheduler cannot place; the message says why (bad call, or no worker available). */
public final class RejectedCallException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RejectedCallException(String message) {
        super(message);
    }

    public RejectedCallException(String message, Throwable cause) {
        super(message, cause);
    }
}
