package org.gargamel.common.lifecycle;

/**
 * A failure after which the process must stop rather than go on (a replica that would diverge, an outcome that can no
 * longer be given). Its message names what failed: the call, the transaction, the thread.
 */
public class FatalException extends RuntimeException {
    public FatalException(String message) {
        super(message);
    }

    public FatalException(String message, Throwable cause) {
        super(message, cause);
    }
}
