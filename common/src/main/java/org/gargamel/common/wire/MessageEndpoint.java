package org.gargamel.common.wire;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process role's side of a JGroups channel: decodes every message, counts and logs the malformed ones and those of
 * a type this role does not handle, and hands the rest to the handler registered for their type. A handler that throws
 * is a bug: the endpoint reports it to {@code onFailure} (the process's supervisor), which fails the process, instead
 * of JGroups logging it and dropping the message (a call would silently lose its outcome).
 *
 * <pre>{@code
 * MessageEndpoint endpoint = new MessageEndpoint("scheduler", supervisor::fail)
 *         .on(SubmitCall.class, (source, call) -> ...)
 *         .onView(view -> ...);
 * channel.setReceiver(endpoint);
 * }</pre>
 */
public final class MessageEndpoint implements Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(MessageEndpoint.class);

    private final String role;
    private final Consumer<Throwable> onFailure;
    private final Map<MessageType, BiConsumer<Address, Message>> handlers = new EnumMap<>(MessageType.class);
    private volatile Consumer<View> viewHandler = view -> { };
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong unexpected = new AtomicLong();

    /** {@code role} names this end in log lines (e.g. {@code node-1 control}). */
    public MessageEndpoint(String role, Consumer<Throwable> onFailure) {
        this.role = role;
        this.onFailure = onFailure;
    }

    /** Registers the handler of one message type (once per type, before the channel connects). */
    public <T extends Message> MessageEndpoint on(Class<T> type, MessageType tag, BiConsumer<Address, T> handler) {
        if (handlers.putIfAbsent(tag, (source, message) -> handler.accept(source, type.cast(message))) != null) {
            throw new IllegalStateException(role + ": two handlers for " + tag);
        }
        return this;
    }

    /** Registers what happens on a view change. */
    public MessageEndpoint onView(Consumer<View> handler) {
        this.viewHandler = handler;
        return this;
    }

    /** Messages that did not decode, since the start. */
    public long malformedCount() {
        return malformed.get();
    }

    /** Well-formed messages of a type this role does not handle, since the start. */
    public long unexpectedCount() {
        return unexpected.get();
    }

    /** Sends {@code message} to {@code target} (null: the whole group) on {@code channel}, encoded. */
    public static void send(JChannel channel, Address target, Message message) throws Exception {
        channel.send(new BytesMessage(target, WireCodec.encode(message)));
    }

    @Override
    public void receive(org.jgroups.Message message) {
        Address source = message.getSrc();
        Message decoded;
        try {
            decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
        } catch (MalformedMessageException e) {
            malformed.incrementAndGet();
            LOG.warn("{}: dropped a malformed message from {}: {}", role, source, e.getMessage());
            return;
        }
        BiConsumer<Address, Message> handler = handlers.get(decoded.type());
        if (handler == null) {
            unexpected.incrementAndGet();
            LOG.warn("{}: dropped an unexpected {} from {}", role, decoded.type(), source);
            return;
        }
        try {
            handler.accept(source, decoded);
        } catch (RuntimeException | Error e) {
            onFailure.accept(new IllegalStateException(role + ": handling " + decoded.type() + " from " + source
                    + " failed: " + e, e));
        }
    }

    @Override
    public void viewAccepted(View view) {
        try {
            viewHandler.accept(view);
        } catch (RuntimeException | Error e) {
            onFailure.accept(new IllegalStateException(role + ": handling view " + view + " failed: " + e, e));
        }
    }
}
