package org.gargamel.frontend.session;

import org.gargamel.frontend.protocol.FrontendMessage;
import org.gargamel.frontend.protocol.ProtocolException;

/**
 * A logged-in session: the simple query protocol ({@link SimpleQuery}) and the extended one ({@link ExtendedProtocol})
 * over one {@link Transaction}, the statements the front end answers itself ({@link Commands}), and the calls that go to
 * the cluster ({@link Calls}).
 */
final class Conversation implements Stage {
    private final Session session;
    private final Replies replies;
    private final Transaction transaction = new Transaction();
    private final Calls calls;
    private final SimpleQuery simple;
    private final ExtendedProtocol extended;

    /** {@code role}: the database role every call and read of this session runs as. */
    Conversation(Session session, String role, Settings settings) {
        this.session = session;
        this.replies = session.replies();
        this.calls = new Calls(session, role, this::internalError);
        Commands commands = new Commands(replies, transaction, settings);
        this.simple = new SimpleQuery(session, transaction, commands, calls);
        this.extended = new ExtendedProtocol(session, transaction, commands, calls, simple);
    }

    /** The transaction block, for ReadyForQuery. */
    TransactionBlock block() {
        return transaction.block();
    }

    @Override
    public void handle(FrontendMessage message) {
        if (message instanceof FrontendMessage.Terminate) {
            session.close();
            return;
        }
        if (message instanceof FrontendMessage.Sync) {
            extended.sync();
            return;
        }
        if (extended.skipping()) {
            return;
        }
        if (message instanceof FrontendMessage.Query query) {
            simple.start(query.sql());
        } else if (message instanceof FrontendMessage.Parse parse) {
            extended.parse(parse);
        } else if (message instanceof FrontendMessage.Bind bind) {
            extended.bind(bind);
        } else if (message instanceof FrontendMessage.Describe describe) {
            extended.describe(describe);
        } else if (message instanceof FrontendMessage.Execute execute) {
            extended.execute(execute);
        } else if (message instanceof FrontendMessage.Close close) {
            extended.close(close);
        } else if (message instanceof FrontendMessage.Flush) {
            session.flush();
        } else if (message instanceof FrontendMessage.Unsupported unsupported) {
            extended.fail(new SqlError(
                    "0A000",
                    "message type '" + unsupported.type() + "' (COPY or function call) is not supported by the "
                            + "front end"));
        } else {
            throw new ProtocolException(
                    "08P01", "unexpected " + message.getClass().getSimpleName() + " after startup");
        }
    }

    /** A CancelRequest came while a call of this session was at the cluster. */
    void cancelRequested() {
        calls.cancelRequested();
    }

    /** Handling {@code message} failed in the front end itself (the drain caught it). */
    void failedInternally(FrontendMessage message, RuntimeException e) {
        if (message instanceof FrontendMessage.Query && !simple.running()) {
            replies.error(new SqlError("XX000", "internal error in the front end: " + e));
            replies.readyForQuery(transaction.block());
        } else {
            internalError(e);
        }
    }

    /**
     * A failure of the front end itself while handling a message or an outcome: XX000 to the client (or the SqlError
     * it was), which then gets its ReadyForQuery as after any error (a simple query ends; the extended protocol skips
     * to Sync).
     */
    private void internalError(RuntimeException e) {
        SqlError error = e instanceof SqlError sqlError
                ? sqlError
                : new SqlError("XX000", "internal error in the front end: " + e);
        if (simple.running()) {
            replies.error(error);
            simple.end(true);
        } else {
            extended.fail(error);
        }
    }

    @Override
    public String toString() {
        return "READY, " + transaction.block().status();
    }
}
