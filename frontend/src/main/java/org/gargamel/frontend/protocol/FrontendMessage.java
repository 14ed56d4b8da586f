package org.gargamel.frontend.protocol;

import java.util.List;
import java.util.Map;

/** A message from the client (PostgreSQL protocol 3.0, "Message Formats"), decoded by {@link FrontendDecoder}. */
public sealed interface FrontendMessage {
    /** SSLRequest: the client asks for TLS before its startup message. */
    record SslRequest() implements FrontendMessage {}

    /** GSSENCRequest: the client asks for GSSAPI encryption. */
    record GssEncRequest() implements FrontendMessage {}

    /** CancelRequest, on a connection of its own: cancel what the session with this key runs. */
    record CancelRequest(int processId, int secretKey) implements FrontendMessage {}

    /** StartupMessage: protocol version and the parameters (user, database, application_name, options...). */
    record Startup(int protocolVersion, Map<String, String> parameters) implements FrontendMessage {}

    /** 'p': a password, SASLInitialResponse or SASLResponse; which one depends on the authentication under way. */
    @SuppressWarnings("ArrayRecordComponent") // read once by the authentication under way
    record AuthenticationResponse(byte[] body) implements FrontendMessage {}

    /** 'Q': a simple query, one or more statements. */
    record Query(String sql) implements FrontendMessage {}

    /** 'P': Parse. A parameter type OID of 0 leaves the type to the server. */
    record Parse(String statement, String sql, List<Integer> parameterTypes) implements FrontendMessage {}

    /**
     * 'B': Bind. {@code parameterFormats} holds 0 (none: all text), 1 (one for all) or one code per parameter (0 text,
     * 1 binary); a null value is SQL NULL; {@code resultFormats} likewise for the result columns.
     */
    record Bind(
            String portal,
            String statement,
            List<Short> parameterFormats,
            List<byte[]> values,
            List<Short> resultFormats)
            implements FrontendMessage {}

    /** 'D': Describe a prepared statement ('S') or a portal ('P'). */
    record Describe(char kind, String name) implements FrontendMessage {}

    /** 'E': Execute a portal, up to {@code maxRows} rows (0: all). */
    record Execute(String portal, int maxRows) implements FrontendMessage {}

    /** 'C': Close a prepared statement ('S') or a portal ('P'). */
    record Close(char kind, String name) implements FrontendMessage {}

    /** 'S': Sync: ends an extended-query cycle. */
    record Sync() implements FrontendMessage {}

    /** 'H': Flush. */
    record Flush() implements FrontendMessage {}

    /** 'X': Terminate. */
    record Terminate() implements FrontendMessage {}

    /** A message type this front end does not take (copy data, function call): refused with an error. */
    record Unsupported(char type) implements FrontendMessage {}
}
