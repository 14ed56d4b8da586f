package org.gargamel.launcher.profile;

/** Profiling could not start or stop; the message names the process and says why. */
public final class ProfilerException extends Exception {
    private static final long serialVersionUID = 1L;

    public ProfilerException(String message) {
        super(message);
    }

    public ProfilerException(String message, Throwable cause) {
        super(message, cause);
    }
}
