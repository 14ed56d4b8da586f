package org.gargamel.launcher.server;

/** A command could not do its work for a reason the user can act on; the message says which. */
public final class CommandFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommandFailedException(String message) {
        super(message);
    }

    public CommandFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
