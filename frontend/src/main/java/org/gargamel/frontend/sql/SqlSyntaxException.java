package org.gargamel.frontend.sql;

/** SQL the front end cannot read: SQLSTATE 42601 (syntax_error) to the client. */
public final class SqlSyntaxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SqlSyntaxException(String message) {
        super(message);
    }
}
