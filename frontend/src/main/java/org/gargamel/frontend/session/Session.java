package org.gargamel.frontend.session;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.gargamel.frontend.protocol.FrontendMessage;
import org.gargamel.frontend.protocol.ProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection (docs/frontend.md), as a pipeline of stages: {@link Startup} (TLS, cancel, the startup
 * message), then {@link ScramLogin}, then the {@link Conversation} (simple and extended queries). Messages are handled
 * one at a time in the order they came, on the connection's event-loop thread; while a call is out at the cluster the
 * later messages wait in a queue (reading stops when it is long), so pipelined messages are answered in order. Answers
 * are gathered in {@link Replies} and written out when the session waits for the client again.
 */
public final class Session extends ChannelInboundHandlerAdapter {
    /** The logger of every class of a session (their lines keep the one logger name). */
    static final Logger LOG = LoggerFactory.getLogger(Session.class);
    /** Queued messages past which the session stops reading from the socket until it caught up. */
    private static final int QUEUE_HIGH_WATER = 1024;

    private final SessionContext shared;
    private final ArrayDeque<FrontendMessage> queue = new ArrayDeque<>();
    private final Admission admission;

    private ChannelHandlerContext channel;
    private Replies replies;
    private Stage stage;
    /** A call is out at the cluster, a lookup runs, or a failed login waits: the queue waits. */
    private boolean busy;
    /** Closes the connection if it has not logged in by then (ClientLimits.authenticationTimeoutSeconds). */
    private ScheduledFuture<?> loginDeadline;

    public Session(SessionContext shared) {
        this.shared = shared;
        this.admission = new Admission(this);
        this.stage = new Startup(this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.channel = context;
        this.replies = new Replies(context);
        // A connection that does not log in within the limit is closed: a slow or silent client holds no slot for
        // ever (PostgreSQL's authentication_timeout).
        loginDeadline = context.executor()
                .schedule(
                        () -> {
                            if (stage instanceof Startup || stage instanceof ScramLogin) {
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
        if (replies != null) {
            replies.release();
        }
        admission.release();
        if (loginDeadline != null) {
            loginDeadline.cancel(false);
        }
        stage = Stage.Closed.CLOSED;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        if (closed()) {
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
                    admission.user());
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
            stage = Stage.Closed.CLOSED;
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
    void drain() {
        while (!busy && !closed() && !queue.isEmpty()) {
            FrontendMessage message = queue.poll();
            try {
                stage.handle(message);
            } catch (ProtocolException e) {
                fatal(e.sqlState(), e.getMessage());
                return;
            } catch (RuntimeException e) {
                LOG.warn("connection {}: {} failed", channel.channel().remoteAddress(), message, e);
                if (stage instanceof Conversation conversation) {
                    conversation.failedInternally(message, e);
                } else {
                    replies.error(new SqlError("XX000", "internal error in the front end: " + e));
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

    void flush() {
        if (replies != null) {
            replies.flush();
        }
    }

    /** A FATAL error: sent, then the connection closes. */
    void fatal(String sqlState, String message) {
        if (replies == null || replies.released() || closed()) {
            return;
        }
        replies.fatal(sqlState, message);
        close();
    }

    /** Closes the connection after the answers gathered so far. */
    void close() {
        stage = Stage.Closed.CLOSED;
        queue.clear();
        replies.flushAndClose();
    }

    /** Closes the connection without an answer (a cancel connection). */
    @SuppressWarnings("FutureReturnValueIgnored") // nothing to report to a cancel connection
    void closeWithoutAnswer() {
        stage = Stage.Closed.CLOSED;
        queue.clear();
        channel.close();
    }

    void become(Stage next) {
        stage = next;
    }

    /** Logged in: the login deadline no longer applies. */
    void loggedIn() {
        loginDeadline.cancel(false);
    }

    boolean closed() {
        return stage == Stage.Closed.CLOSED;
    }

    boolean busy() {
        return busy;
    }

    void busy(boolean busy) {
        this.busy = busy;
    }

    /** The messages received and not handled yet, in order. */
    Iterable<FrontendMessage> queued() {
        return queue;
    }

    SessionContext shared() {
        return shared;
    }

    ChannelHandlerContext channel() {
        return channel;
    }

    Replies replies() {
        return replies;
    }

    Admission admission() {
        return admission;
    }

    boolean tlsActive() {
        return channel.pipeline().get(SslHandler.class) != null;
    }

    /**
     * A CancelRequest with this session's key (any thread). A call already at the cluster runs to its end and its
     * client gets its real outcome (docs/frontend.md, Cancel); the calls this query or Sync cycle has not sent yet are
     * not sent (57014). Nothing is running: nothing to cancel, as in PostgreSQL.
     */
    void cancelRequested() {
        channel.executor().execute(() -> {
            if (busy && stage instanceof Conversation conversation) {
                conversation.cancelRequested();
                LOG.debug(
                        "connection {}: cancel requested while a call is at the cluster",
                        channel.channel().remoteAddress());
            }
        });
    }

    /** For tests and logs. */
    @Override
    public String toString() {
        return "Session[" + admission.user() + ", " + stage + "]";
    }
}
