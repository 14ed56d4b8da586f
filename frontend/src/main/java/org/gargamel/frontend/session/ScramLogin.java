package org.gargamel.frontend.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.gargamel.frontend.auth.AuthenticationException;
import org.gargamel.frontend.auth.ScramExchange;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.protocol.FrontendMessage;
import org.gargamel.frontend.protocol.ProtocolException;

/**
 * The SCRAM-SHA-256 login after the startup message: SASLInitialResponse (answered with the server's first message),
 * then SASLResponse (answered with its proof, and the login ends in {@link Admission#admit}). A failed login is
 * FATAL, after ClientLimits.authenticationFailureDelayMillis.
 */
final class ScramLogin implements Stage {
    private final Session session;
    private final String user;
    private final Settings settings;
    private final ScramExchange scram;
    /** Whether the SASLInitialResponse is still to come (else the SASLResponse). */
    private boolean initial = true;

    ScramLogin(Session session, String user, Settings settings, ScramExchange scram) {
        this.session = session;
        this.user = user;
        this.settings = settings;
        this.scram = scram;
    }

    @Override
    public void handle(FrontendMessage message) {
        if (!(message instanceof FrontendMessage.AuthenticationResponse response)) {
            throw new ProtocolException(
                    "08P01",
                    "expected a SASL response, got " + message.getClass().getSimpleName());
        }
        ChannelHandlerContext channel = session.channel();
        ByteBuf body = channel.alloc().buffer().writeBytes(response.body());
        try {
            if (initial) {
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
                BackendMessages.authenticationSaslContinue(session.replies().out(), ScramExchange.bytes(serverFirst));
                initial = false;
            } else {
                String serverFinal = scram.serverFinal(body.toString(StandardCharsets.UTF_8), user);
                BackendMessages.authenticationSaslFinal(session.replies().out(), ScramExchange.bytes(serverFinal));
                session.admission().admit(settings);
            }
        } catch (AuthenticationException e) {
            Session.LOG.info(
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
        int delay = session.shared().limits().authenticationFailureDelayMillis();
        if (delay == 0) {
            session.fatal(e.sqlState(), e.getMessage());
            return;
        }
        session.busy(true); // nothing more is handled: the drain stops here
        ChannelHandlerContext channel = session.channel();
        channel.channel().config().setAutoRead(false);
        channel.executor()
                .schedule(
                        () -> {
                            session.busy(false);
                            session.fatal(e.sqlState(), e.getMessage());
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

    @Override
    public String toString() {
        return initial ? "SASL_INITIAL" : "SASL_FINAL";
    }
}
