package org.gargamel.frontend.session;

import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.frontend.protocol.BackendMessages;

/**
 * A connection's place in the front end's limits (maxConnections, ClientLimits.maxConnectionsPerUser) and its cancel
 * key, taken as it starts and logs in, and given back when it ends; and the end of the login: the role its calls run as,
 * AuthenticationOk, the parameters, BackendKeyData and the first ReadyForQuery.
 */
final class Admission {
    private final Session session;
    /** Whether this connection is counted in the front end's connections. */
    private boolean counted;
    /** Whether this connection is counted in its user's sessions. */
    private boolean countedForUser;

    private String user;
    /** BackendKeyData's process id (0: none yet), for CancelRequest. */
    private int processId;

    Admission(Session session) {
        this.session = session;
    }

    /** The user the startup message named (null before it). */
    String user() {
        return user;
    }

    /** Counts the connection of {@code user}; false (nothing counted) past maxConnections. */
    boolean takeConnection(String user) {
        SessionContext shared = session.shared();
        if (shared.connections().incrementAndGet() > shared.maxConnections()) {
            shared.connections().decrementAndGet();
            return false;
        }
        counted = true;
        this.user = user;
        return true;
    }

    /**
     * Authenticated: AuthenticationOk, the parameters, the key, ReadyForQuery; first the database role this user's
     * calls and reads run as (docs/frontend.md, Security): its configured role, or a role of its own name.
     */
    void admit(Settings settings) {
        SessionContext shared = session.shared();
        String role;
        try {
            role = ProcedureCall.checkRole(shared.roles().getOrDefault(user, user));
        } catch (IllegalArgumentException e) {
            session.fatal("28000", "user \"" + user + "\" maps to no valid database role: " + e.getMessage());
            return;
        }
        int limit = shared.limits().maxConnectionsPerUser();
        int[] sessions = new int[1];
        shared.sessionsByUser().compute(user, (name, count) -> {
            AtomicInteger seen = count == null ? new AtomicInteger() : count;
            sessions[0] = seen.incrementAndGet();
            return seen;
        });
        countedForUser = true;
        if (limit > 0 && sessions[0] > limit) {
            session.fatal(
                    "53300", "too many connections for role \"" + user + "\" (maxConnectionsPerUser " + limit + ")");
            return;
        }
        session.loggedIn();
        Replies replies = session.replies();
        BackendMessages.authenticationOk(replies.out());
        for (String name : Settings.REPORTED) {
            BackendMessages.parameterStatus(replies.out(), name, settings.get(name));
        }
        int[] key = shared.cancelKeys().register(session, shared.random());
        processId = key[0];
        BackendMessages.backendKeyData(replies.out(), key[0], key[1]);
        Conversation conversation = new Conversation(session, role, settings);
        session.become(conversation);
        replies.readyForQuery(conversation.block());
    }

    /** The connection ended: its counts and key are given back. */
    void release() {
        SessionContext shared = session.shared();
        if (counted) {
            shared.connections().decrementAndGet();
            counted = false;
        }
        if (countedForUser) {
            // Removed at zero, so that names tried and gone (trust lets in any) leave nothing behind.
            shared.sessionsByUser()
                    .computeIfPresent(user, (name, sessions) -> sessions.decrementAndGet() == 0 ? null : sessions);
            countedForUser = false;
        }
        if (processId != 0) {
            shared.cancelKeys().unregister(processId, session);
        }
    }
}
