package org.gargamel.frontend.session;

import org.gargamel.frontend.protocol.FrontendMessage;

/**
 * Where a connection is in its life, each stage handling the messages that stage takes: {@link Startup} (TLS, cancel,
 * the startup message), {@link ScramLogin} (the SASL exchange), {@link Conversation} (queries, once logged in), and
 * {@link Closed}, which takes nothing.
 */
sealed interface Stage permits Startup, ScramLogin, Conversation, Stage.Closed {
    /** Handles one message; a {@link org.gargamel.frontend.protocol.ProtocolException} ends the connection. */
    void handle(FrontendMessage message);

    /** The connection is closed or closing: nothing more is handled. */
    enum Closed implements Stage {
        CLOSED;

        @Override
        public void handle(FrontendMessage message) {}
    }
}
