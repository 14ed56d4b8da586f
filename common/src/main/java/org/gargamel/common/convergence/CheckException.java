package org.gargamel.common.convergence;

/**
 * A check could not be carried out (unreachable database, missing table, failed query). A check that
 * runs and finds violations does not throw: it reports them.
 */
public final class CheckException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CheckException(String message, Throwable cause) {
        super(message, cause);
    }
}
