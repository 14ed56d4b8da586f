package org.gargamel.provisioning;

/** PostgreSQL could not be started or reached; the message names the server and the reason. */
public final class PostgresProvisioningException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PostgresProvisioningException(String message) {
        super(message);
    }

    public PostgresProvisioningException(String message, Throwable cause) {
        super(message, cause);
    }
}
