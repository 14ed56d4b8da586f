package org.gargamel.frontend.session;

import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.frontend.auth.ScramVerifier;
import org.gargamel.frontend.sql.CallBuilder;
import org.gargamel.frontend.sql.StatementParser;

/**
 * What every session of one front end shares: where it submits calls (the cluster), the parser and call builder of
 * its rules, the procedures' result shapes, the users, and the connection count.
 *
 * @param cluster           where each connection opens its library session and sends its calls
 * @param trust             true: no password asked (authentication: trust)
 * @param verifiers         the users' SCRAM verifiers, by name
 * @param roles             the database role of each configured user whose role is not its name (docs/frontend.md,
 *                          Security); any other user's calls and reads run as the role of its name
 * @param maxConnections    sessions past this many are refused (53300)
 * @param tls               TLS for clients that send SSLRequest; null: none ('N')
 * @param requireTls        clients in clear are refused (28000)
 * @param cancelKeys        the sessions' BackendKeyData, for CancelRequest
 * @param submitted         calls sent to the cluster by every session (for the CPU per call of benchmarks)
 * @param limits            limits for hostile clients (sessions per user, login time, delay after a failed login)
 * @param sessionsByUser    the logged-in sessions of each user, for {@code limits.maxConnectionsPerUser}
 * @param privileges        whether a role may execute a procedure, asked before its call is placed
 */
public record SessionContext(
        CallSessions cluster,
        StatementParser parser,
        CallBuilder calls,
        CallShapes shapes,
        boolean trust,
        Map<String, ScramVerifier> verifiers,
        Map<String, String> roles,
        String serverVersion,
        int maxConnections,
        AtomicInteger connections,
        SecureRandom random,
        SslContext tls,
        boolean requireTls,
        CancelKeys cancelKeys,
        AtomicLong submitted,
        ClientLimits limits,
        ConcurrentHashMap<String, AtomicInteger> sessionsByUser,
        ExecutePrivileges privileges) {}
