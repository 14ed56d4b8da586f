package org.gargamel.frontend.session;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.frontend.auth.ScramExchange;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.protocol.FrontendMessage;
import org.gargamel.frontend.protocol.ProtocolException;

/**
 * A connection's first stage: SSLRequest ('S' and the TLS handshake, or 'N'), GSSENCRequest ('N'), CancelRequest (the
 * connection closes without an answer), then the startup message: TLS required, the connection limit, the settings,
 * and either trust (logged in) or SCRAM ({@link ScramLogin}).
 */
final class Startup implements Stage {
    private final Session session;

    Startup(Session session) {
        this.session = session;
    }

    @Override
    public void handle(FrontendMessage message) {
        SessionContext shared = session.shared();
        Replies replies = session.replies();
        if (message instanceof FrontendMessage.SslRequest && shared.tls() != null && !session.tlsActive()) {
            // 'S' goes out in clear, then the TLS handshake starts at once below the decoder (which refused any
            // bytes the client sent after its SSLRequest: they would bypass TLS, CVE-2021-23214).
            BackendMessages.singleByte(replies.out(), 'S');
            session.flush();
            ChannelHandlerContext channel = session.channel();
            channel.pipeline()
                    .addBefore("decoder", "tls", new SslHandler(shared.tls().newEngine(channel.alloc())));
            return;
        }
        if (message instanceof FrontendMessage.SslRequest || message instanceof FrontendMessage.GssEncRequest) {
            BackendMessages.singleByte(
                    replies.out(), 'N'); // no TLS configured, or no GSSAPI: the client goes on in clear
            return;
        }
        if (message instanceof FrontendMessage.CancelRequest cancel) {
            // As PostgreSQL: the cancel connection is closed without an answer, whether the key matched or not.
            boolean cancelled = shared.cancelKeys().cancel(cancel.processId(), cancel.secretKey());
            Session.LOG.debug(
                    "cancel request for session {}: {}", cancel.processId(), cancelled ? "delivered" : "no match");
            session.closeWithoutAnswer();
            return;
        }
        if (!(message instanceof FrontendMessage.Startup startup)) {
            throw new ProtocolException(
                    "08P01",
                    "expected a startup message, got " + message.getClass().getSimpleName());
        }
        if (shared.requireTls() && !session.tlsActive()) {
            session.fatal(
                    "28000",
                    "TLS required: this server accepts connections over TLS only (sslmode=require or " + "stronger)");
            return;
        }
        String user = startup.parameters().get("user");
        if (!session.admission().takeConnection(user)) {
            session.fatal("53300", "sorry, too many clients already (maxConnections " + shared.maxConnections() + ")");
            return;
        }
        Map<String, String> parameters = new LinkedHashMap<>(startup.parameters());
        options(parameters.get("options"), parameters);
        Settings settings = new Settings(shared.serverVersion(), user, parameters);
        if (shared.trust()) {
            session.admission().admit(settings);
            return;
        }
        ScramExchange scram = new ScramExchange(shared.verifiers().get(user), shared.random());
        BackendMessages.authenticationSasl(replies.out(), List.of(ScramExchange.MECHANISM));
        session.become(new ScramLogin(session, user, settings, scram));
    }

    /** {@code options=-c name=value ...} of the startup message, as settings. */
    static void options(String options, Map<String, String> parameters) {
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

    @Override
    public String toString() {
        return "STARTUP";
    }
}
