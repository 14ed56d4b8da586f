package org.gargamel.frontend.protocol;

/**
 * A message that breaks the protocol (garbage, an oversized or truncated message, a bad startup packet): the session
 * answers with a FATAL error carrying {@link #sqlState()} and closes the connection; nothing else is disturbed.
 */
public final class ProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String sqlState;

    public ProtocolException(String sqlState, String message) {
        super(message);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
