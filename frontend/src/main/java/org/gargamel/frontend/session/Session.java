package org.gargamel.frontend.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.gargamel.classifier.ParameterType;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientSession;
import org.gargamel.common.client.GargamelClientException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.auth.AuthenticationException;
import org.gargamel.frontend.auth.ScramExchange;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.protocol.FrontendMessage;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.protocol.ProtocolException;
import org.gargamel.frontend.sql.SqlStatement;
import org.gargamel.frontend.sql.SqlSyntaxException;
import org.gargamel.frontend.sql.StatementParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: the protocol's state machine (docs/frontend.md). Startup and authentication, then simple and
 * extended queries. Messages are handled one at a time in the order they came, on the connection's event-loop thread;
 * while a call is out at the cluster the later messages wait in a queue (reading stops when it is long), so pipelined
 * messages are answered in order. Answers are gathered in a buffer and written out when the session waits for the
 * client again.
 */
public final class Session extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    /** Queued messages past which the session stops reading from the socket until it caught up. */
    private static final int QUEUE_HIGH_WATER = 1024;
    /** Ad-hoc statement descriptions a session keeps at most. */
    private static final int MAX_DESCRIBED = 1024;

    private static final String SEVERAL_WRITING_CALLS = "a transaction may hold one call that writes: each call is a "
            + "transaction of its own at the cluster, so several cannot commit or roll back together, and this one has "
            + "more. Send each in a transaction of its own (with the extended protocol: its own Sync, no batch), or "
            + "write one procedure that does them all; none of them ran";

    private enum Phase {
        STARTUP,
        SASL_INITIAL,
        SASL_FINAL,
        READY,
        CLOSED
    }

    private final SessionContext shared;
    private final ArrayDeque<FrontendMessage> queue = new ArrayDeque<>();
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    /** What a replica said of each ad-hoc statement this session described (parameter types, columns). */
    private final Map<Prepared, AdHocDescription> described = new HashMap<>();

    private ChannelHandlerContext channel;
    /** The library session this connection's calls go through (read-your-writes), opened with its first call. */
    private ClientSession calls;

    private ByteBuf out;
    private Phase phase = Phase.STARTUP;
    private boolean counted;
    private String user;
    /** The database role every call and read of this session runs as, once authenticated. */
    private String role;
    /** Closes the connection if it has not logged in by then (ClientLimits.authenticationTimeoutSeconds). */
    private ScheduledFuture<?> loginDeadline;
    /** Whether this session is counted in its user's sessions (ClientLimits.maxConnectionsPerUser). */
    private boolean countedForUser;

    private Settings settings;
    private ScramExchange scram;
    /** A call is out at the cluster (or a lookup runs): the queue waits. */
    private boolean busy;
    /** Extended protocol: after an error, messages are skipped up to Sync. */
    private boolean skipUntilSync;
    /** 'I' idle, 'T' in a transaction block, 'E' in a failed block. */
    private char transaction = 'I';
    /** An update call ran in the current transaction (explicit block, multi-statement query, or Sync cycle). */
    private boolean updateInTransaction;
    /** The simple query under way: its statements still to run. */
    private ArrayDeque<SqlStatement> simpleQuery;
    /** BackendKeyData's process id (0: none yet), for CancelRequest. */
    private int processId;
    /**
     * A CancelRequest came while a call was at the cluster: that call runs to its end, and no further call of this
     * query or Sync cycle is sent (57014). Cleared when the cycle ends.
     */
    private boolean cancelRequested;

    public Session(SessionContext shared) {
        this.shared = shared;
    }

    /** A statement prepared by Parse: its text, what it is, and the parameter types the client gave. */
    private record Prepared(String sql, SqlStatement statement, List<Integer> parameterTypes, int parameterCount) {}

    /** An ad-hoc statement as a replica described it without running it: its parameters' types and its columns. */
    private record AdHocDescription(List<Integer> parameterTypes, List<ResultRows.Column> columns) {}

    /** A portal made by Bind: the statement, the call built from its parameters, the result formats, its outcome. */
    private static final class Portal {
        final Prepared prepared;
        final ProcedureCall call;
        final List<Short> resultFormats;
        CallOutcome outcome;
        int sent; // rows already sent (Execute with a row limit)

        Portal(Prepared prepared, ProcedureCall call, List<Short> resultFormats) {
            this.prepared = prepared;
            this.call = call;
            this.resultFormats = resultFormats;
        }
    }

    /** An error for the client: SQLSTATE, message and optional detail and hint. */
    private static final class SqlError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String sqlState;
        final String detail;
        final String hint;
        /** Where in the statement's text the error is (1-based characters); 0: nowhere in particular. */
        final int position;

        SqlError(String sqlState, String message, String detail, String hint, int position) {
            super(message);
            this.sqlState = sqlState;
            this.detail = detail;
            this.hint = hint;
            this.position = position;
        }

        SqlError(String sqlState, String message, String detail, String hint) {
            this(sqlState, message, detail, hint, 0);
        }

        SqlError(String sqlState, String message) {
            this(sqlState, message, null, null);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.channel = context;
        this.out = context.alloc().buffer();
        // A connection that does not log in within the limit is closed: a slow or silent client holds no slot for
        // ever (PostgreSQL's authentication_timeout).
        loginDeadline = context.executor()
                .schedule(
                        () -> {
                            if (phase != Phase.READY && phase != Phase.CLOSED) {
                                LOG.info(
                                        "connection {}: not logged in within {} s, closed",
                                        context.channel().remoteAddress(),
                                        shared.limits().authenticationTimeoutSeconds());
                                busy = false;
                                fatal("08006", "canceling authentication due to timeout");
                            }
                        },
                        shared.limits().authenticationTimeoutSeconds(),
                        TimeUnit.SECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext context) {
        if (out != null) {
            out.release();
            out = null;
        }
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
        if (loginDeadline != null) {
            loginDeadline.cancel(false);
        }
        if (processId != 0) {
            shared.cancelKeys().unregister(processId, this);
        }
        phase = Phase.CLOSED;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        if (phase == Phase.CLOSED) {
            return;
        }
        queue.add((FrontendMessage) message);
        if (queue.size() > QUEUE_HIGH_WATER) {
            context.channel().config().setAutoRead(false);
        }
    }

    /**
     * No traffic for the configured idle time (idleSessionTimeoutSeconds): the session ends as PostgreSQL's
     * idle_session_timeout ends one, unless a call of it is still at the cluster.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof IdleStateEvent && !busy && queue.isEmpty()) {
            LOG.info(
                    "connection {} of user \"{}\" closed: idle",
                    context.channel().remoteAddress(),
                    user);
            fatal("57P05", "terminating connection due to idle-session timeout");
        } else {
            context.fireUserEventTriggered(event);
        }
    }

    /** What one read brought is all queued: handle it (so a Sync cycle sent whole can be looked at whole). */
    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        drain();
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a failed close or write reaches exceptionCaught or ends the channel
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        Throwable reason = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (reason instanceof ProtocolException protocol) {
            fatal(protocol.sqlState(), protocol.getMessage());
            return;
        }
        if (reason instanceof SSLException) {
            LOG.info("connection {}: TLS failed: {}", context.channel().remoteAddress(), reason.getMessage());
            phase = Phase.CLOSED;
            context.close();
            return;
        }
        if (reason instanceof java.io.IOException) {
            LOG.debug("connection {} closed: {}", context.channel().remoteAddress(), reason.toString());
        } else {
            LOG.warn("connection {} failed", context.channel().remoteAddress(), reason);
            fatal("XX000", "internal error in the front end: " + reason);
        }
        context.close();
    }

    /** Handles queued messages until one waits for the cluster or the queue is empty; then writes the answers. */
    private void drain() {
        while (!busy && phase != Phase.CLOSED && !queue.isEmpty()) {
            FrontendMessage message = queue.poll();
            try {
                handle(message);
            } catch (ProtocolException e) {
                fatal(e.sqlState(), e.getMessage());
                return;
            } catch (RuntimeException e) {
                LOG.warn("connection {}: {} failed", channel.channel().remoteAddress(), message, e);
                if (message instanceof FrontendMessage.Query && simpleQuery == null) {
                    errorResponse(new SqlError("XX000", "internal error in the front end: " + e));
                    BackendMessages.readyForQuery(out, transaction);
                } else {
                    internalError(e);
                }
            }
        }
        if (!busy
                && queue.size() <= QUEUE_HIGH_WATER / 2
                && !channel.channel().config().isAutoRead()) {
            channel.channel().config().setAutoRead(true);
        }
        flush();
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a failed write closes the channel; Netty reports it
    private void flush() {
        if (out != null && out.isReadable() && channel.channel().isActive()) {
            channel.writeAndFlush(out);
            out = channel.alloc().buffer();
        }
    }

    private void handle(FrontendMessage message) {
        switch (phase) {
            case STARTUP -> startup(message);
            case SASL_INITIAL, SASL_FINAL -> authenticate(message);
            case READY -> ready(message);
            case CLOSED -> {}
        }
    }

    // ---- startup and authentication

    private void startup(FrontendMessage message) {
        if (message instanceof FrontendMessage.SslRequest && shared.tls() != null && !tlsActive()) {
            // 'S' goes out in clear, then the TLS handshake starts at once below the decoder (which refused any
            // bytes the client sent after its SSLRequest: they would bypass TLS, CVE-2021-23214).
            BackendMessages.singleByte(out, 'S');
            flush();
            channel.pipeline()
                    .addBefore("decoder", "tls", new SslHandler(shared.tls().newEngine(channel.alloc())));
            return;
        }
        if (message instanceof FrontendMessage.SslRequest || message instanceof FrontendMessage.GssEncRequest) {
            BackendMessages.singleByte(out, 'N'); // no TLS configured, or no GSSAPI: the client goes on in clear
            return;
        }
        if (message instanceof FrontendMessage.CancelRequest cancel) {
            // As PostgreSQL: the cancel connection is closed without an answer, whether the key matched or not.
            boolean cancelled = shared.cancelKeys().cancel(cancel.processId(), cancel.secretKey());
            LOG.debug("cancel request for session {}: {}", cancel.processId(), cancelled ? "delivered" : "no match");
            phase = Phase.CLOSED;
            queue.clear();
            var unused = channel.close(); // nothing to report to a cancel connection
            return;
        }
        if (!(message instanceof FrontendMessage.Startup startup)) {
            throw new ProtocolException(
                    "08P01",
                    "expected a startup message, got " + message.getClass().getSimpleName());
        }
        if (shared.requireTls() && !tlsActive()) {
            fatal(
                    "28000",
                    "TLS required: this server accepts connections over TLS only (sslmode=require or " + "stronger)");
            return;
        }
        if (shared.connections().incrementAndGet() > shared.maxConnections()) {
            shared.connections().decrementAndGet();
            fatal("53300", "sorry, too many clients already (maxConnections " + shared.maxConnections() + ")");
            return;
        }
        counted = true;
        user = startup.parameters().get("user");
        Map<String, String> parameters = new LinkedHashMap<>(startup.parameters());
        options(parameters.get("options"), parameters);
        settings = new Settings(shared.serverVersion(), user, parameters);
        if (shared.trust()) {
            ready();
            return;
        }
        scram = new ScramExchange(shared.verifiers().get(user), shared.random());
        BackendMessages.authenticationSasl(out, List.of(ScramExchange.MECHANISM));
        phase = Phase.SASL_INITIAL;
    }

    /** {@code options=-c name=value ...} of the startup message, as settings. */
    private static void options(String options, Map<String, String> parameters) {
        if (options == null) {
            return;
        }
        String[] words = options.trim().split("\\s+", -1);
        for (int i = 0; i < words.length; i++) {
            String setting = words[i].equals("-c") && i + 1 < words.length
                    ? words[++i]
                    : words[i].startsWith("--") ? words[i].substring(2) : null;
            if (setting != null && setting.contains("=")) {
                int equals = setting.indexOf('=');
                parameters.put(setting.substring(0, equals).replace('-', '_'), setting.substring(equals + 1));
            }
        }
    }

    private void authenticate(FrontendMessage message) {
        if (!(message instanceof FrontendMessage.AuthenticationResponse response)) {
            throw new ProtocolException(
                    "08P01",
                    "expected a SASL response, got " + message.getClass().getSimpleName());
        }
        ByteBuf body = channel.alloc().buffer().writeBytes(response.body());
        try {
            if (phase == Phase.SASL_INITIAL) {
                String mechanism = cString(body);
                if (!ScramExchange.MECHANISM.equals(mechanism)) {
                    throw new AuthenticationException(
                            "28000", "SASL mechanism " + mechanism + " is not supported (SCRAM-SHA-256 is)");
                }
                int length = body.readableBytes() >= 4 ? body.readInt() : -2;
                if (length < 0 || length != body.readableBytes()) {
                    throw new AuthenticationException("08P01", "malformed SASLInitialResponse");
                }
                String serverFirst = scram.serverFirst(body.toString(StandardCharsets.UTF_8));
                BackendMessages.authenticationSaslContinue(out, ScramExchange.bytes(serverFirst));
                phase = Phase.SASL_FINAL;
            } else {
                String serverFinal = scram.serverFinal(body.toString(StandardCharsets.UTF_8), user);
                BackendMessages.authenticationSaslFinal(out, ScramExchange.bytes(serverFinal));
                scram = null;
                ready();
            }
        } catch (AuthenticationException e) {
            LOG.info(
                    "connection {}: authentication of user \"{}\" failed: {}",
                    channel.channel().remoteAddress(),
                    user,
                    e.getMessage());
            failLogin(e);
        } finally {
            body.release();
        }
    }

    /**
     * A failed login: its FATAL waits {@code authenticationFailureDelayMillis}, reading nothing meanwhile and its
     * connection still counted, so that a client guessing passwords gets one guess per delay per connection.
     */
    @SuppressWarnings("FutureReturnValueIgnored") // the task only writes the FATAL; the channel reports its own failure
    private void failLogin(AuthenticationException e) {
        int delay = shared.limits().authenticationFailureDelayMillis();
        if (delay == 0) {
            fatal(e.sqlState(), e.getMessage());
            return;
        }
        busy = true; // nothing more is handled: the drain stops here
        channel.channel().config().setAutoRead(false);
        channel.executor()
                .schedule(
                        () -> {
                            busy = false;
                            fatal(e.sqlState(), e.getMessage());
                        },
                        delay,
                        TimeUnit.MILLISECONDS);
    }

    private static String cString(ByteBuf body) {
        int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new ProtocolException("08P01", "malformed SASLInitialResponse: no mechanism name");
        }
        String text = body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8);
        body.readerIndex(end + 1);
        return text;
    }

    /**
     * Authenticated: AuthenticationOk, the parameters, the key, ReadyForQuery; first the database role this user's
     * calls and reads run as (docs/frontend.md, Security): its configured role, or a role of its own name.
     */
    private void ready() {
        try {
            role = ProcedureCall.checkRole(shared.roles().getOrDefault(user, user));
        } catch (IllegalArgumentException e) {
            fatal("28000", "user \"" + user + "\" maps to no valid database role: " + e.getMessage());
            return;
        }
        int limit = shared.limits().maxConnectionsPerUser();
        int[] sessions = new int[1];
        shared.sessionsByUser().compute(user, (name, count) -> {
            AtomicInteger counted = count == null ? new AtomicInteger() : count;
            sessions[0] = counted.incrementAndGet();
            return counted;
        });
        countedForUser = true;
        if (limit > 0 && sessions[0] > limit) {
            fatal("53300", "too many connections for role \"" + user + "\" (maxConnectionsPerUser " + limit + ")");
            return;
        }
        loginDeadline.cancel(false);
        BackendMessages.authenticationOk(out);
        for (String name : Settings.REPORTED) {
            BackendMessages.parameterStatus(out, name, settings.get(name));
        }
        int[] key = shared.cancelKeys().register(this, shared.random());
        processId = key[0];
        BackendMessages.backendKeyData(out, key[0], key[1]);
        phase = Phase.READY;
        BackendMessages.readyForQuery(out, transaction);
    }

    // ---- after startup

    private void ready(FrontendMessage message) {
        if (message instanceof FrontendMessage.Terminate) {
            close();
            return;
        }
        if (message instanceof FrontendMessage.Sync) {
            sync();
            return;
        }
        if (skipUntilSync) {
            return;
        }
        if (message instanceof FrontendMessage.Query query) {
            simpleQuery(query.sql());
        } else if (message instanceof FrontendMessage.Parse parse) {
            parse(parse);
        } else if (message instanceof FrontendMessage.Bind bind) {
            bind(bind);
        } else if (message instanceof FrontendMessage.Describe describe) {
            describe(describe);
        } else if (message instanceof FrontendMessage.Execute execute) {
            execute(execute);
        } else if (message instanceof FrontendMessage.Close close) {
            if (close.kind() == 'S') {
                statements.remove(close.name());
            } else {
                portals.remove(close.name());
            }
            BackendMessages.closeComplete(out);
        } else if (message instanceof FrontendMessage.Flush) {
            flush();
        } else if (message instanceof FrontendMessage.Unsupported unsupported) {
            fail(new SqlError(
                    "0A000",
                    "message type '" + unsupported.type() + "' (COPY or function call) is not supported by the "
                            + "front end"));
        } else {
            throw new ProtocolException(
                    "08P01", "unexpected " + message.getClass().getSimpleName() + " after startup");
        }
    }

    // ---- simple query

    private void simpleQuery(String sql) {
        List<SqlStatement> parsed;
        try {
            parsed = shared.parser().parseAll(sql);
        } catch (SqlSyntaxException e) {
            errorResponse(new SqlError("42601", e.getMessage()));
            endSimpleQuery(true);
            return;
        }
        if (parsed.size() == 1 && parsed.get(0) instanceof SqlStatement.Empty) {
            BackendMessages.emptyQueryResponse(out);
            BackendMessages.readyForQuery(out, transaction);
            return;
        }
        String refusal = severalWritingCalls(parsed);
        if (refusal != null) {
            errorResponse(new SqlError("0A000", refusal));
            endSimpleQuery(true);
            return;
        }
        simpleQuery = new ArrayDeque<>();
        for (SqlStatement statement : parsed) {
            if (!(statement instanceof SqlStatement.Empty)) {
                simpleQuery.add(statement);
            }
        }
        continueSimpleQuery();
    }

    /**
     * Why a query string is refused before any of it runs: two calls that write in one transaction (the string's
     * implicit one, or a block it opens), which the cluster cannot commit or roll back together. Null if none.
     */
    private String severalWritingCalls(List<SqlStatement> parsed) {
        int writing = updateInTransaction ? 1 : 0;
        for (SqlStatement statement : parsed) {
            if (statement instanceof SqlStatement.Begin
                    || statement instanceof SqlStatement.Commit
                    || statement instanceof SqlStatement.Rollback) {
                writing = 0;
            } else if (statement instanceof SqlStatement.Call call
                    && !shared.calls().rule(call.procedure()).readOnly()
                    && ++writing > 1) {
                return SEVERAL_WRITING_CALLS;
            }
        }
        return null;
    }

    /** Runs the simple query's statements in turn; one that waits for the cluster resumes it when its outcome comes. */
    private void continueSimpleQuery() {
        while (simpleQuery != null && !simpleQuery.isEmpty() && !busy) {
            SqlStatement statement = simpleQuery.poll();
            try {
                run(statement, null, true, done -> {
                    if (!done) {
                        endSimpleQuery(true);
                    } else {
                        continueSimpleQuery();
                    }
                });
            } catch (SqlError e) {
                errorResponse(e);
                endSimpleQuery(true);
                return;
            }
        }
        if (simpleQuery != null && simpleQuery.isEmpty() && !busy) {
            endSimpleQuery(false);
        }
    }

    private void endSimpleQuery(boolean failed) {
        simpleQuery = null;
        cancelRequested = false;
        if (failed && transaction == 'T') {
            transaction = 'E';
        }
        if (transaction == 'I') {
            updateInTransaction = false; // the implicit transaction of the query string ends here
        }
        BackendMessages.readyForQuery(out, transaction);
    }

    // ---- running a statement (both protocols)

    /**
     * Runs {@code statement}: at once, or, for a call, by sending it and continuing in {@code then} (true: it
     * succeeded) when the outcome comes (always later, on this session's thread). A refusal or an error before anything was sent is thrown as {@link SqlError}. {@code portal}
     * is the extended protocol's (null in a simple query); {@code describeRows}: send a RowDescription with rows.
     */
    private void run(SqlStatement statement, Portal portal, boolean describeRows, Consumer<Boolean> then) {
        if (transaction == 'E'
                && !(statement instanceof SqlStatement.Commit || statement instanceof SqlStatement.Rollback)) {
            throw new SqlError(
                    "25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        if (statement instanceof SqlStatement.Begin) {
            if (transaction != 'I') {
                notice("WARNING", "25001", "there is already a transaction in progress");
            }
            transaction = 'T';
            updateInTransaction = false;
            complete("BEGIN");
        } else if (statement instanceof SqlStatement.Commit) {
            if (transaction == 'I') {
                notice("WARNING", "25P01", "there is no transaction in progress");
            }
            complete(transaction == 'E' ? "ROLLBACK" : "COMMIT");
            endTransaction();
        } else if (statement instanceof SqlStatement.Rollback) {
            if (transaction == 'I') {
                notice("WARNING", "25P01", "there is no transaction in progress");
            } else if (updateInTransaction) {
                notice(
                        "WARNING",
                        "01000",
                        "the call of this transaction block committed when it ran: a call is "
                                + "a transaction of its own, which ROLLBACK cannot undo");
            }
            complete("ROLLBACK");
            endTransaction();
        } else if (statement instanceof SqlStatement.Set set) {
            set(set);
        } else if (statement instanceof SqlStatement.Reset reset) {
            if (reset.name().equals("all")) {
                settings.resetAll();
            } else {
                reportIfChanged(reset.name(), settings.set(reset.name(), null));
            }
            complete("RESET");
        } else if (statement instanceof SqlStatement.Discard discard) {
            settings.resetAll();
            complete("DISCARD " + discard.what());
        } else if (statement instanceof SqlStatement.Show show) {
            show(show, portal, describeRows);
        } else if (statement instanceof SqlStatement.Version version) {
            List<ResultRows.Column> column = List.of(new ResultRows.Column(version.column(), PgTypes.TEXT));
            sendRows(new ResultRows(column, List.of(List.of(versionText()))), portal, describeRows, "SELECT 1");
        } else if (statement instanceof SqlStatement.Refused refused) {
            throw new SqlError(refused.sqlState(), refused.message());
        } else if (statement instanceof SqlStatement.Call call) {
            call(call, portal, describeRows, then);
        } else if (statement instanceof SqlStatement.AdHocRead read) {
            if (portal != null) {
                throw new IllegalStateException("a portal's ad-hoc read runs through runPortalAdHoc");
            }
            submit(
                    ProcedureCall.adHoc(AdHocQuery.run(read.sql(), List.of(), List.of())),
                    outcome -> finishAdHoc(outcome, null, describeRows, then));
        } else if (statement instanceof SqlStatement.Empty) {
            BackendMessages.emptyQueryResponse(out);
        }
    }

    private String versionText() {
        return "PostgreSQL " + settings.get("server_version") + " (Gargamel front end: calls of stored procedures on "
                + "replicated PostgreSQL)";
    }

    private void endTransaction() {
        transaction = 'I';
        updateInTransaction = false;
    }

    private void set(SqlStatement.Set set) {
        if (set.name().equals("transaction")) {
            complete("SET"); // SET TRANSACTION ...: each call is a transaction of its own, at the cluster's isolation
            return;
        }
        if (set.name().equals("client_encoding")
                && set.value() != null
                && !set.value().replace("-", "").equalsIgnoreCase("UTF8")
                && !set.value().equalsIgnoreCase("UNICODE")) {
            throw new SqlError(
                    "22023", "the front end speaks UTF8 only; client_encoding " + set.value() + " is not supported");
        }
        String value = settings.set(set.name(), set.value());
        complete("SET");
        reportIfChanged(set.name(), value);
    }

    private void reportIfChanged(String name, String value) {
        if (settings.isReported(name) && value != null) {
            BackendMessages.parameterStatus(out, settings.spelling(name), value);
        }
    }

    private void show(SqlStatement.Show show, Portal portal, boolean describeRows) {
        if (show.name().equals("all")) {
            List<List<String>> rows = new ArrayList<>();
            settings.all().forEach((name, value) -> rows.add(List.of(name, value, "")));
            sendRows(
                    new ResultRows(
                            List.of(
                                    new ResultRows.Column("name", PgTypes.TEXT),
                                    new ResultRows.Column("setting", PgTypes.TEXT),
                                    new ResultRows.Column("description", PgTypes.TEXT)),
                            rows),
                    portal,
                    describeRows,
                    "SHOW");
            return;
        }
        String value = settings.get(show.name());
        if (value == null) {
            throw new SqlError("42704", "unrecognized configuration parameter \"" + show.name() + "\"");
        }
        sendRows(
                new ResultRows(
                        List.of(new ResultRows.Column(settings.spelling(show.name()), PgTypes.TEXT)),
                        List.of(List.of(value))),
                portal,
                describeRows,
                "SHOW");
    }

    private void complete(String tag) {
        BackendMessages.commandComplete(out, tag);
    }

    // ---- calls

    /** A simple query's call: built from its literals, checked against the transaction, sent. */
    private void call(SqlStatement.Call call, Portal portal, boolean describeRows, Consumer<Boolean> then) {
        if (portal != null) {
            throw new IllegalStateException("a portal's call runs through runPortalCall");
        }
        ProcedureCall procedureCall = build(call, List.of());
        checkWrite(call);
        submit(procedureCall, outcome -> finishCall(call, null, outcome, describeRows, then));
    }

    /** A call that writes: refused if its transaction already ran one, else noted. */
    private void checkWrite(SqlStatement.Call call) {
        if (shared.calls().rule(call.procedure()).readOnly()) {
            return;
        }
        if (updateInTransaction) {
            throw new SqlError(
                    "0A000",
                    "a transaction may hold one call that writes, and this one already ran one: each call is a "
                            + "transaction of its own at the cluster, so several cannot commit or roll back together. "
                            + "Send " + call.procedure() + " in a transaction of its own (with the extended protocol: "
                            + "its own Sync, no batch), or write one procedure that does both");
        }
        updateInTransaction = true;
    }

    private ProcedureCall build(SqlStatement.Call call, List<String> parameters) {
        try {
            return shared.calls().build(call, parameters);
        } catch (PgTypes.ValueException e) {
            throw new SqlError(e.sqlState(), e.getMessage());
        }
    }

    /** Sends {@code call} to the cluster; {@code then} runs on this session's thread with its outcome. */
    private void submit(ProcedureCall call, Consumer<CallOutcome> then) {
        if (cancelRequested) {
            throw new SqlError(
                    "57014",
                    "canceling statement due to user request",
                    "the call of " + call.procedure() + " was not sent to the cluster",
                    null);
        }
        busy = true;
        CompletableFuture<Boolean> allowed;
        try {
            allowed = call.adHoc() != null ? null : shared.privileges().mayExecute(role, call.procedure());
            if (allowed == null || Boolean.TRUE.equals(allowed.getNow(false))) {
                send(call, then);
                return;
            }
        } catch (RuntimeException e) {
            busy = false; // nothing was sent: the session goes on with the next message
            throw e;
        }
        // Asked of the catalogue replica off this thread; the answer comes back here.
        Futures.whenDone(allowed, (yes, failure) -> {
            try {
                channel.executor().execute(() -> {
                    if (phase == Phase.CLOSED) {
                        return;
                    }
                    if (failure == null && !yes) {
                        outcomeArrived(
                                call,
                                CallOutcome.userAborted(
                                        -1, -1, "42501", "permission denied for function " + call.procedure()),
                                null,
                                then);
                    } else if (cancelRequested) { // a cancel came while the catalogue was asked: not sent
                        outcomeArrived(
                                call,
                                CallOutcome.userAborted(
                                        -1,
                                        -1,
                                        "57014",
                                        "canceling statement due to user request: the call of " + call.procedure()
                                                + " was not sent to the cluster"),
                                null,
                                then);
                    } else {
                        try {
                            send(call, then);
                        } catch (RuntimeException e) {
                            outcomeArrived(call, null, e, then); // its outcome, and the session goes on
                        }
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("the privilege of {} came after the front end stopped", call); // its connection is gone
            }
        });
    }

    /** Sends {@code call}, which the user's role may execute as far as the front end knows, to the cluster. */
    private void send(ProcedureCall call, Consumer<CallOutcome> then) {
        if (calls == null) {
            calls = shared.client().openSession(); // the connection's calls read its acknowledged writes
        }
        CompletableFuture<CallOutcome> future =
                calls.submit(call.asRole(role)); // the user's privileges, never the node's
        shared.submitted().incrementAndGet();
        Futures.whenDone(future, (outcome, failure) -> {
            try {
                channel.executor().execute(() -> outcomeArrived(call, outcome, failure, then));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("the outcome of {} came after the front end stopped", call); // its connection is gone
            }
        });
    }

    /** A call's outcome, on this session's thread: handled, then the messages that waited for it. */
    private void outcomeArrived(
            ProcedureCall call, CallOutcome outcome, Throwable failure, Consumer<CallOutcome> then) {
        busy = false;
        if (phase == Phase.CLOSED) {
            return;
        }
        try {
            if (failure != null) {
                Throwable cause =
                        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                                ? failure.getCause()
                                : failure;
                then.accept(CallOutcome.rejected(-1, -1, clientFailure(cause)));
            } else {
                then.accept(outcome);
            }
        } catch (ProtocolException e) {
            fatal(e.sqlState(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            LOG.warn(
                    "connection {}: handling the outcome of {} failed",
                    channel.channel().remoteAddress(),
                    call,
                    e);
            internalError(e);
        }
        drain();
    }

    /**
     * A failure of the front end itself while handling a message: XX000 to the client, which then gets its
     * ReadyForQuery as after any error (a simple query ends; the extended protocol skips to Sync).
     */
    private void internalError(RuntimeException e) {
        SqlError error = e instanceof SqlError sqlError
                ? sqlError
                : new SqlError("XX000", "internal error in the front end: " + e);
        if (simpleQuery != null) {
            errorResponse(error);
            endSimpleQuery(true);
        } else {
            fail(error);
        }
    }

    /** The library's failure (overloaded, timed out, disconnected) as the rejection the client is told of. */
    private static String clientFailure(Throwable cause) {
        if (cause instanceof GargamelClientException client) {
            return client.reason() + ": " + client.getMessage();
        }
        return "the call failed: " + cause;
    }

    private void finishCall(
            SqlStatement.Call call, Portal portal, CallOutcome outcome, boolean describeRows, Consumer<Boolean> then) {
        switch (outcome.status()) {
            case COMMITTED -> {
                shared.shapes().learn(call.procedure(), outcome.rows());
                ResultRows rows = shape(call, outcome.rows() != null ? outcome.rows() : fallbackRows(call, outcome));
                String tag = call.form() == SqlStatement.Form.CALL
                        ? "CALL"
                        : "SELECT " + rows.rows().size();
                sendRows(rows, portal, describeRows, tag);
                then.accept(true);
            }
            case USER_ABORTED, REJECTED -> callFailed(errorOf(outcome), portal, then);
        }
    }

    /** The client's error for an outcome that did not commit: PostgreSQL's fields, or the cluster's refusal. */
    private static SqlError errorOf(CallOutcome outcome) {
        if (outcome.status() == CallOutcome.Status.REJECTED) {
            return new SqlError(rejectionState(outcome.message()), outcome.message());
        }
        CallOutcome.ErrorFields error = outcome.error();
        return new SqlError(
                outcome.sqlState() != null ? outcome.sqlState() : "P0001",
                error != null && error.message() != null ? error.message() : outcome.message(),
                error != null ? error.detail() : null,
                error != null ? error.hint() : null,
                error != null ? error.position() : 0);
    }

    // ---- ad-hoc reads (docs/frontend.md): run on a replica, read-only, after the session's acknowledged writes

    /** A simple query's ad-hoc read came back: its rows, or its error. */
    private void finishAdHoc(CallOutcome outcome, Portal portal, boolean describeRows, Consumer<Boolean> then) {
        if (outcome.status() != CallOutcome.Status.COMMITTED) {
            callFailed(errorOf(outcome), portal, then);
            return;
        }
        ResultRows rows = outcome.rows() != null ? outcome.rows() : ResultRows.EMPTY;
        sendRows(rows, portal, describeRows, "SELECT " + rows.rows().size());
        then.accept(true);
    }

    /** Describe of an ad-hoc statement: asked of a replica once per statement text and declared types, then known. */
    private void describeAdHocStatement(Prepared prepared, SqlStatement.AdHocRead read) {
        AdHocDescription known = described.get(prepared);
        if (known != null) {
            sendStatementDescription(known);
            return;
        }
        submit(ProcedureCall.adHoc(AdHocQuery.describe(read.sql(), prepared.parameterTypes())), outcome -> {
            if (outcome.status() != CallOutcome.Status.COMMITTED) {
                fail(errorOf(outcome));
                return;
            }
            List<Integer> types = new ArrayList<>();
            if (outcome.result() != null && !outcome.result().isEmpty()) {
                for (String type : outcome.result().split(",", -1)) {
                    types.add(Integer.parseInt(type));
                }
            }
            AdHocDescription description = new AdHocDescription(
                    List.copyOf(types), outcome.rows() != null ? outcome.rows().columns() : List.of());
            if (described.size() >= MAX_DESCRIBED) {
                described.clear(); // a client preparing ever new texts: forget, and ask again when needed
            }
            described.put(prepared, description);
            sendStatementDescription(description);
        });
    }

    private void sendStatementDescription(AdHocDescription description) {
        List<BackendMessages.Field> fields;
        try {
            fields = fields(description.columns(), List.of());
        } catch (SqlError e) {
            fail(e);
            return;
        }
        BackendMessages.parameterDescription(out, description.parameterTypes());
        if (fields.isEmpty()) {
            BackendMessages.noData(out);
        } else {
            BackendMessages.rowDescription(out, fields);
        }
    }

    /** Each parameter's type for an ad-hoc query: the client's, else the one a replica described, else 0 (infer). */
    private List<Integer> adHocParameterTypes(Prepared prepared) {
        AdHocDescription description = described.get(prepared);
        List<Integer> types = new ArrayList<>(prepared.parameterCount());
        for (int i = 0; i < prepared.parameterCount(); i++) {
            int given = i < prepared.parameterTypes().size()
                    ? prepared.parameterTypes().get(i)
                    : 0;
            if (given == 0
                    && description != null
                    && i < description.parameterTypes().size()) {
                given = description.parameterTypes().get(i);
            }
            types.add(given);
        }
        return types;
    }

    /** Runs a portal's ad-hoc read, then {@code after}, with the outcome in the portal. */
    private void runPortalAdHoc(Portal portal, Runnable after) {
        if (transaction == 'E') {
            throw new SqlError(
                    "25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        submit(portal.call, outcome -> {
            portal.outcome = outcome;
            after.run();
        });
    }

    private void describeAdHocPortal(Portal portal) {
        if (portal.outcome.status() != CallOutcome.Status.COMMITTED) {
            fail(errorOf(portal.outcome));
            return;
        }
        List<ResultRows.Column> columns =
                portal.outcome.rows() != null ? portal.outcome.rows().columns() : List.of();
        try {
            List<BackendMessages.Field> fields = fields(columns, portal.resultFormats);
            if (fields.isEmpty()) {
                BackendMessages.noData(out);
            } else {
                BackendMessages.rowDescription(out, fields);
            }
        } catch (SqlError e) {
            fail(e);
        }
    }

    /** The rows of a portal's ad-hoc read from position {@code sent}, up to {@code maxRows} (0: all). */
    private void sendAdHocPortal(Portal portal, int maxRows) {
        if (portal.outcome.status() != CallOutcome.Status.COMMITTED) {
            fail(errorOf(portal.outcome));
            return;
        }
        ResultRows rows = portal.outcome.rows() != null ? portal.outcome.rows() : ResultRows.EMPTY;
        if (sendPortalRows(rows, portal, maxRows)) {
            complete("SELECT " + rows.rows().size());
        }
    }

    /**
     * DataRows of {@code rows} in the portal's formats from position {@code sent}, up to {@code maxRows} (0: all);
     * true if the last was sent (else PortalSuspended went out), false too after an error.
     */
    private boolean sendPortalRows(ResultRows rows, Portal portal, int maxRows) {
        int from = portal.sent;
        int to = maxRows > 0
                ? Math.min(rows.rows().size(), from + maxRows)
                : rows.rows().size();
        try {
            for (List<String> row : rows.rows().subList(from, to)) {
                List<byte[]> values = new ArrayList<>(row.size());
                for (int i = 0; i < row.size(); i++) {
                    values.add(PgTypes.encode(
                            row.get(i), rows.columns().get(i).typeOid(), format(portal.resultFormats, i)));
                }
                BackendMessages.dataRow(out, values);
            }
        } catch (PgTypes.ValueException e) {
            fail(new SqlError(e.sqlState(), e.getMessage()));
            return false;
        }
        portal.sent = to;
        if (to < rows.rows().size()) {
            BackendMessages.portalSuspended(out);
            return false;
        }
        return true;
    }

    private void callFailed(SqlError error, Portal portal, Consumer<Boolean> then) {
        if (portal != null) {
            fail(error);
        } else {
            errorResponse(error);
        }
        then.accept(false);
    }

    /** A call the library could not settle: its outcome is unknown (08007); overload (53000); else the cluster's refusal. */
    private static String rejectionState(String message) {
        if (message != null && (message.startsWith("TIMED_OUT") || message.startsWith("DISCONNECTED"))) {
            return "08007";
        }
        if (message != null && message.startsWith("OVERLOADED")) {
            return "53000";
        }
        return "XX000";
    }

    /** An outcome without rows (from a node that predates them): its one-line result as one text column. */
    private static ResultRows fallbackRows(SqlStatement.Call call, CallOutcome outcome) {
        return new ResultRows(
                List.of(new ResultRows.Column(call.procedure(), PgTypes.TEXT)),
                outcome.result() == null ? List.of() : List.of(List.of(outcome.result())));
    }

    /**
     * The rows as the client's form of the call shows them: {@code SELECT p(...)} gives one column named after the
     * procedure (or its alias), holding a record when the procedure returns several columns.
     */
    static ResultRows shape(SqlStatement.Call call, ResultRows rows) {
        if (call.form() != SqlStatement.Form.SELECT_VALUE) {
            return rows;
        }
        String name = call.column() != null ? call.column() : call.procedure();
        if (rows.columns().size() == 1) {
            return new ResultRows(
                    List.of(new ResultRows.Column(name, rows.columns().get(0).typeOid())), rows.rows());
        }
        List<List<String>> records = new ArrayList<>(rows.rows().size());
        for (List<String> row : rows.rows()) {
            records.add(java.util.Collections.singletonList(record(row)));
        }
        return new ResultRows(List.of(new ResultRows.Column(name, PgTypes.RECORD)), records);
    }

    /** A row as PostgreSQL's record text: {@code (1,"a b",)}. */
    static String record(List<String> values) {
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                text.append(',');
            }
            String value = values.get(i);
            if (value == null) {
                continue;
            }
            boolean quote = value.isEmpty();
            for (int j = 0; j < value.length() && !quote; j++) {
                char c = value.charAt(j);
                quote = c == ',' || c == '(' || c == ')' || c == '"' || c == '\\' || Character.isWhitespace(c);
            }
            if (quote) {
                text.append('"')
                        .append(value.replace("\\", "\\\\").replace("\"", "\"\""))
                        .append('"');
            } else {
                text.append(value);
            }
        }
        return text.append(')').toString();
    }

    /**
     * RowDescription (when {@code describeRows}), the DataRows in the portal's formats (text in a simple query), and the
     * command tag; an Execute with a row limit stops at it with PortalSuspended.
     */
    private void sendRows(ResultRows rows, Portal portal, boolean describeRows, String tag) {
        List<Short> formats = portal == null ? List.of() : portal.resultFormats;
        if (describeRows) {
            BackendMessages.rowDescription(out, fields(rows.columns(), formats));
        }
        for (List<String> row : rows.rows()) {
            List<byte[]> values = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                try {
                    values.add(PgTypes.encode(row.get(i), rows.columns().get(i).typeOid(), format(formats, i)));
                } catch (PgTypes.ValueException e) {
                    throw new SqlError(e.sqlState(), e.getMessage());
                }
            }
            BackendMessages.dataRow(out, values);
        }
        complete(tag);
    }

    private static List<BackendMessages.Field> fields(List<ResultRows.Column> columns, List<Short> formats) {
        List<BackendMessages.Field> fields = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            ResultRows.Column column = columns.get(i);
            short format = format(formats, i);
            if (format == 1 && !PgTypes.binarySupported(column.typeOid())) {
                throw new SqlError(
                        "0A000",
                        "column " + column.name() + " (type " + column.typeOid() + ") cannot be sent in binary format "
                                + "by the front end; ask for text");
            }
            fields.add(new BackendMessages.Field(
                    column.name(), column.typeOid(), PgTypes.typeLength(column.typeOid()), format));
        }
        return fields;
    }

    private static short format(List<Short> formats, int column) {
        if (formats.isEmpty()) {
            return 0;
        }
        return formats.size() == 1 ? formats.get(0) : formats.get(column);
    }

    // ---- extended protocol

    private void parse(FrontendMessage.Parse parse) {
        if (!parse.statement().isEmpty() && statements.containsKey(parse.statement())) {
            fail(new SqlError("42P05", "prepared statement \"" + parse.statement() + "\" already exists"));
            return;
        }
        SqlStatement statement;
        try {
            if (StatementParser.isMultiStatement(parse.sql())) {
                throw new SqlError("42601", "cannot insert multiple commands into a prepared statement");
            }
            statement = shared.parser().parse(parse.sql().replaceAll(";\\s*$", ""));
        } catch (SqlSyntaxException e) {
            fail(new SqlError("42601", e.getMessage()));
            return;
        } catch (SqlError e) {
            fail(e);
            return;
        }
        if (statement instanceof SqlStatement.Refused refused) {
            fail(new SqlError(refused.sqlState(), refused.message()));
            return;
        }
        int count = Math.max(
                StatementParser.parameterCount(parse.sql()),
                parse.parameterTypes().size());
        statements.put(parse.statement(), new Prepared(parse.sql(), statement, parse.parameterTypes(), count));
        BackendMessages.parseComplete(out);
    }

    private void bind(FrontendMessage.Bind bind) {
        Prepared prepared = statements.get(bind.statement());
        if (prepared == null) {
            fail(new SqlError("26000", "prepared statement \"" + bind.statement() + "\" does not exist"));
            return;
        }
        if (bind.values().size() != prepared.parameterCount()) {
            fail(new SqlError(
                    "08P01",
                    "bind message supplies " + bind.values().size() + " parameters, but prepared statement \""
                            + bind.statement() + "\" requires " + prepared.parameterCount()));
            return;
        }
        if (!bind.portal().isEmpty() && portals.containsKey(bind.portal())) {
            fail(new SqlError("42P03", "cursor \"" + bind.portal() + "\" already exists"));
            return;
        }
        try {
            List<Integer> types = parameterTypes(prepared);
            List<String> texts = new ArrayList<>(bind.values().size());
            for (int i = 0; i < bind.values().size(); i++) {
                byte[] value = bind.values().get(i);
                short format = bind.parameterFormats().isEmpty()
                        ? 0
                        : bind.parameterFormats().size() == 1
                                ? bind.parameterFormats().get(0)
                                : bind.parameterFormats().get(i);
                texts.add(
                        value == null
                                ? null
                                : format == 0
                                        ? new String(value, StandardCharsets.UTF_8)
                                        : PgTypes.binaryToText(value, binaryType(prepared, types, i)));
            }
            ProcedureCall call = prepared.statement() instanceof SqlStatement.Call sqlCall
                    ? build(sqlCall, texts)
                    : prepared.statement() instanceof SqlStatement.AdHocRead read
                            ? ProcedureCall.adHoc(AdHocQuery.run(read.sql(), adHocParameterTypes(prepared), texts))
                            : null;
            portals.put(bind.portal(), new Portal(prepared, call, bind.resultFormats()));
            BackendMessages.bindComplete(out);
        } catch (PgTypes.ValueException e) {
            fail(new SqlError(e.sqlState(), e.getMessage()));
        } catch (SqlError e) {
            fail(e);
        }
    }

    /** A binary parameter's type: the one the client gave, else the one the procedure declares for it. */
    private static int binaryType(Prepared prepared, List<Integer> types, int index) {
        int given = index < prepared.parameterTypes().size()
                ? prepared.parameterTypes().get(index)
                : 0;
        return given != 0 ? given : types.get(index);
    }

    /**
     * Each parameter's type: for a call, the type the rules declare where {@code $n} stands (the element type inside
     * ARRAY[...]); where the client gave one and it is not used in a call, the client's; else text.
     */
    private List<Integer> parameterTypes(Prepared prepared) {
        List<Integer> types = new ArrayList<>(prepared.parameterCount());
        for (int i = 0; i < prepared.parameterCount(); i++) {
            int given = i < prepared.parameterTypes().size()
                    ? prepared.parameterTypes().get(i)
                    : 0;
            types.add(given != 0 ? given : PgTypes.TEXT);
        }
        if (prepared.statement() instanceof SqlStatement.AdHocRead) {
            List<Integer> adHoc = adHocParameterTypes(prepared);
            for (int i = 0; i < types.size(); i++) {
                if (adHoc.get(i) != 0) {
                    types.set(i, adHoc.get(i));
                }
            }
        }
        if (prepared.statement() instanceof SqlStatement.Call call) {
            ProcedureRule rule = shared.calls().rule(call.procedure());
            for (int i = 0; i < call.arguments().size() && i < rule.parameters().size(); i++) {
                declare(call.arguments().get(i), rule.parameters().get(i).type(), types);
            }
        }
        return types;
    }

    private static void declare(SqlStatement.Argument argument, ParameterType type, List<Integer> types) {
        if (argument instanceof SqlStatement.Parameter parameter && parameter.number() <= types.size()) {
            types.set(parameter.number() - 1, oid(type));
        } else if (argument instanceof SqlStatement.ArrayOf array) {
            for (SqlStatement.Argument element : array.elements()) {
                declare(element, type.elementType(), types);
            }
        }
    }

    /** The pg_type OID of a rules type. */
    static int oid(ParameterType type) {
        return switch (type) {
            case INTEGER -> PgTypes.INT4;
            case BIGINT -> PgTypes.INT8;
            case NUMERIC -> PgTypes.NUMERIC;
            case TEXT -> PgTypes.TEXT;
            case VARCHAR -> PgTypes.VARCHAR;
            case TIMESTAMP -> PgTypes.TIMESTAMP;
            default -> PgTypes.arrayOf(oid(type.elementType()));
        };
    }

    private void describe(FrontendMessage.Describe describe) {
        if (describe.kind() == 'S') {
            Prepared prepared = statements.get(describe.name());
            if (prepared == null) {
                fail(new SqlError("26000", "prepared statement \"" + describe.name() + "\" does not exist"));
                return;
            }
            if (prepared.statement() instanceof SqlStatement.AdHocRead read) {
                describeAdHocStatement(prepared, read);
                return;
            }
            List<ResultRows.Column> columns;
            try {
                columns = columnsBeforeRunning(prepared.statement());
            } catch (SqlError e) {
                fail(e);
                return;
            }
            BackendMessages.parameterDescription(out, parameterTypes(prepared));
            if (columns == null) {
                BackendMessages.noData(out);
            } else {
                BackendMessages.rowDescription(out, fields(columns, List.of()));
            }
            return;
        }
        Portal portal = portals.get(describe.name());
        if (portal == null) {
            fail(new SqlError("34000", "portal \"" + describe.name() + "\" does not exist"));
            return;
        }
        if (portal.prepared.statement() instanceof SqlStatement.AdHocRead) {
            try {
                if (portal.outcome == null) {
                    runPortalAdHoc(portal, () -> describeAdHocPortal(portal));
                } else {
                    describeAdHocPortal(portal);
                }
            } catch (SqlError e) {
                fail(e);
            }
            return;
        }
        if (portal.prepared.statement() instanceof SqlStatement.Call call) {
            // The columns of a call are known for sure once it ran: a bound portal runs its call now, and the Execute
            // that follows sends the rows.
            if (portal.outcome == null) {
                try {
                    runPortalCall(call, portal, () -> describePortalRows(call, portal));
                } catch (SqlError e) {
                    fail(e);
                }
                return;
            }
            describePortalRows(call, portal);
            return;
        }
        try {
            List<ResultRows.Column> columns = columnsBeforeRunning(portal.prepared.statement());
            if (columns == null) {
                BackendMessages.noData(out);
            } else {
                BackendMessages.rowDescription(out, fields(columns, portal.resultFormats));
            }
        } catch (SqlError e) {
            fail(e);
        }
    }

    private void describePortalRows(SqlStatement.Call call, Portal portal) {
        CallOutcome outcome = portal.outcome;
        if (outcome.status() != CallOutcome.Status.COMMITTED) {
            finishCall(call, portal, outcome, false, done -> {});
            return;
        }
        describePortal(shape(call, outcome.rows() != null ? outcome.rows() : fallbackRows(call, outcome)), portal);
    }

    private void describePortal(ResultRows rows, Portal portal) {
        if (rows == null) {
            BackendMessages.noData(out);
            return;
        }
        try {
            BackendMessages.rowDescription(out, fields(rows.columns(), portal.resultFormats));
        } catch (SqlError e) {
            fail(e);
        }
    }

    /** Runs a portal's call (write-rule checks included) and then {@code after}, with the outcome in the portal. */
    private void runPortalCall(SqlStatement.Call call, Portal portal, Runnable after) {
        if (transaction == 'E') {
            throw new SqlError(
                    "25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
        if (transaction == 'I'
                && !shared.calls().rule(call.procedure()).readOnly()
                && anotherWritingCallInThisCycle()) {
            throw new SqlError("0A000", SEVERAL_WRITING_CALLS);
        }
        checkWrite(call);
        submit(portal.call, outcome -> {
            portal.outcome = outcome;
            if (outcome.status() == CallOutcome.Status.COMMITTED) {
                shared.shapes().learn(call.procedure(), outcome.rows());
            }
            after.run();
        });
    }

    /**
     * Whether the messages already received for this Sync cycle (its implicit transaction) bind another call that
     * writes: pgjdbc sends a multi-statement string or a batch whole, up to its Sync, so such a cycle is refused before
     * any of its calls runs. Messages not yet received cannot be seen; their call is refused when it comes.
     */
    private boolean anotherWritingCallInThisCycle() {
        Map<String, SqlStatement> parsedAhead = new HashMap<>();
        for (FrontendMessage message : queue) {
            if (message instanceof FrontendMessage.Sync) {
                return false;
            }
            if (message instanceof FrontendMessage.Parse parse) {
                SqlStatement statement;
                try {
                    statement = shared.parser().parse(parse.sql().replaceAll(";\\s*$", ""));
                } catch (RuntimeException e) {
                    statement = null; // refused when its turn comes
                }
                parsedAhead.put(parse.statement(), statement);
            } else if (message instanceof FrontendMessage.Bind bind) {
                SqlStatement statement = parsedAhead.containsKey(bind.statement())
                        ? parsedAhead.get(bind.statement())
                        : statements.containsKey(bind.statement())
                                ? statements.get(bind.statement()).statement()
                                : null;
                if (statement instanceof SqlStatement.Begin
                        || statement instanceof SqlStatement.Commit
                        || statement instanceof SqlStatement.Rollback) {
                    return false;
                }
                if (statement instanceof SqlStatement.Call call
                        && !shared.calls().rule(call.procedure()).readOnly()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** What a statement returns, known before it runs: a call's from the catalogue or earlier calls; null: nothing. */
    private List<ResultRows.Column> columnsBeforeRunning(SqlStatement statement) {
        if (statement instanceof SqlStatement.Call call) {
            List<ResultRows.Column> columns = shared.shapes().columns(call.procedure());
            if (columns == null) {
                throw new SqlError(
                        "0A000",
                        "cannot describe a call of " + call.procedure() + " before one has run: configure the "
                                + "front end's catalog (a replica's JDBC URL) so that it can describe calls");
            }
            return shape(call, new ResultRows(columns, List.of())).columns();
        } else if (statement instanceof SqlStatement.Show show) {
            return show.name().equals("all")
                    ? List.of(
                            new ResultRows.Column("name", PgTypes.TEXT),
                            new ResultRows.Column("setting", PgTypes.TEXT),
                            new ResultRows.Column("description", PgTypes.TEXT))
                    : List.of(new ResultRows.Column(settings.spelling(show.name()), PgTypes.TEXT));
        } else if (statement instanceof SqlStatement.Version version) {
            return List.of(new ResultRows.Column(version.column(), PgTypes.TEXT));
        } else {
            return null;
        }
    }

    private void execute(FrontendMessage.Execute execute) {
        Portal portal = portals.get(execute.portal());
        if (portal == null) {
            fail(new SqlError("34000", "portal \"" + execute.portal() + "\" does not exist"));
            return;
        }
        SqlStatement statement = portal.prepared.statement();
        try {
            if (statement instanceof SqlStatement.Call call) {
                if (portal.outcome == null) {
                    runPortalCall(call, portal, () -> sendPortalOutcome(call, portal, execute.maxRows()));
                } else {
                    sendPortalOutcome(call, portal, execute.maxRows());
                }
                return;
            }
            if (statement instanceof SqlStatement.AdHocRead) {
                if (portal.outcome == null) {
                    runPortalAdHoc(portal, () -> sendAdHocPortal(portal, execute.maxRows()));
                } else {
                    sendAdHocPortal(portal, execute.maxRows());
                }
                return;
            }
            run(statement, portal, false, done -> {});
        } catch (SqlError e) {
            fail(e);
        }
    }

    /** The rows of a portal's call from position {@code sent}, up to {@code maxRows} (0: all). */
    private void sendPortalOutcome(SqlStatement.Call call, Portal portal, int maxRows) {
        CallOutcome outcome = portal.outcome;
        if (outcome.status() != CallOutcome.Status.COMMITTED) {
            finishCall(call, portal, outcome, false, done -> {}); // the call's error, told at Execute
            return;
        }
        ResultRows rows = shape(call, outcome.rows() != null ? outcome.rows() : fallbackRows(call, outcome));
        int from = portal.sent;
        int to = maxRows > 0
                ? Math.min(rows.rows().size(), from + maxRows)
                : rows.rows().size();
        List<Short> formats = portal.resultFormats;
        try {
            for (List<String> row : rows.rows().subList(from, to)) {
                List<byte[]> values = new ArrayList<>(row.size());
                for (int i = 0; i < row.size(); i++) {
                    values.add(PgTypes.encode(row.get(i), rows.columns().get(i).typeOid(), format(formats, i)));
                }
                BackendMessages.dataRow(out, values);
            }
        } catch (PgTypes.ValueException e) {
            fail(new SqlError(e.sqlState(), e.getMessage()));
            return;
        }
        portal.sent = to;
        if (to < rows.rows().size()) {
            BackendMessages.portalSuspended(out);
            return;
        }
        complete(
                call.form() == SqlStatement.Form.CALL
                        ? "CALL"
                        : "SELECT " + rows.rows().size());
    }

    private void sync() {
        skipUntilSync = false;
        cancelRequested = false;
        portals.remove("");
        if (transaction == 'I') {
            updateInTransaction = false; // the Sync ends the implicit transaction
            portals.clear();
        }
        BackendMessages.readyForQuery(out, transaction);
    }

    /** An error in the extended protocol: ErrorResponse, then everything up to Sync is skipped. */
    private void fail(SqlError error) {
        errorResponse(error);
        if (transaction == 'T') {
            transaction = 'E';
        }
        if (simpleQuery == null) {
            skipUntilSync = true;
        }
    }

    // ---- errors and the end

    private void errorResponse(SqlError error) {
        Map<Character, String> fields = new LinkedHashMap<>();
        fields.put('S', "ERROR");
        fields.put('V', "ERROR");
        fields.put('C', error.sqlState);
        fields.put('M', error.getMessage());
        fields.put('D', error.detail);
        fields.put('H', error.hint);
        if (error.position > 0) {
            fields.put('P', Integer.toString(error.position));
        }
        BackendMessages.errorOrNotice(out, 'E', fields);
    }

    private void notice(String severity, String sqlState, String message) {
        Map<Character, String> fields = new LinkedHashMap<>();
        fields.put('S', severity);
        fields.put('V', severity);
        fields.put('C', sqlState);
        fields.put('M', message);
        BackendMessages.errorOrNotice(out, 'N', fields);
    }

    /** A FATAL error: sent, then the connection closes. */
    private void fatal(String sqlState, String message) {
        if (out == null || phase == Phase.CLOSED) {
            return;
        }
        Map<Character, String> fields = new LinkedHashMap<>();
        fields.put('S', "FATAL");
        fields.put('V', "FATAL");
        fields.put('C', sqlState);
        fields.put('M', message);
        BackendMessages.errorOrNotice(out, 'E', fields);
        close();
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the listener closes the channel once the last answer is out
    private void close() {
        phase = Phase.CLOSED;
        queue.clear();
        if (channel.channel().isActive()) {
            ByteBuf last = out;
            out = channel.alloc().buffer();
            channel.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private boolean tlsActive() {
        return channel.pipeline().get(SslHandler.class) != null;
    }

    /**
     * A CancelRequest with this session's key (any thread). A call already at the cluster runs to its end and its
     * client gets its real outcome (docs/frontend.md, Cancel); the calls this query or Sync cycle has not sent yet are
     * not sent (57014). Nothing is running: nothing to cancel, as in PostgreSQL.
     */
    void cancelRequested() {
        channel.executor().execute(() -> {
            if (busy && phase == Phase.READY) {
                cancelRequested = true;
                LOG.debug(
                        "connection {}: cancel requested while a call is at the cluster",
                        channel.channel().remoteAddress());
            }
        });
    }

    /** For tests and logs. */
    @Override
    public String toString() {
        return "Session[" + user + ", " + phase + ", " + transaction + "]";
    }
}
