package org.gargamel.frontend.auth;

/** Authentication failed: a FATAL error with this SQLSTATE (28P01 wrong password, 28000 refused, 08P01 malformed). */
public final class AuthenticationException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String sqlState;

    public AuthenticationException(String sqlState, String message) {
        super(message);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
