package org.gargamel.classifier;

/** A rules file or a call that the rules reject; the message names the file and line, or the argument. */
public final class RulesException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RulesException(String message) {
        super(message);
    }

    public RulesException(String message, Throwable cause) {
        super(message, cause);
    }
}
