package org.gargamel.tpcc.cli;

/** A command could not do its work for a reason the user can act on; the message says which. */
final class CommandFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CommandFailedException(String message) {
        super(message);
    }

    CommandFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
