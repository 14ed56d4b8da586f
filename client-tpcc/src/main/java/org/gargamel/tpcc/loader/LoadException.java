package org.gargamel.tpcc.loader;

/**
 * A load failed or was refused. The message names the database URL and the step; the cause (with its
 * SQLSTATE, for a database error) is kept.
 */
public final class LoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LoadException(String message) {
        super(message);
    }

    public LoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
