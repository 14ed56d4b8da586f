package org.gargamel.frontend.session;

/**
 * Limits for hostile clients (docs/frontend.md, Security): sessions per user (0: none but the front end's
 * {@code maxConnections}), how long a connection may take to log in before it is closed, and how long a failed login
 * waits before its FATAL 28P01 (its connection still counted), which slows a password guesser down.
 */
public record ClientLimits(
        int maxConnectionsPerUser, int authenticationTimeoutSeconds, int authenticationFailureDelayMillis) {
    /** No limit per user, 60 s to log in (PostgreSQL's authentication_timeout), half a second after a failure. */
    public static final ClientLimits DEFAULTS = new ClientLimits(0, 60, 500);
}
