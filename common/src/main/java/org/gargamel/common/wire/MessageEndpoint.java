package org.gargamel.common.wire;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.gargamel.common.lifecycle.FatalException;
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
 * is a bug: the endpoint reports it to {@code onFailure} (the owner's supervisor, which fails the process; or the
 * client, which closes itself) as a {@link FatalException} naming the role, the message (type and ids) and its source,
 * instead of JGroups logging it and dropping the message (a call would silently lose its outcome).
 *
 * <p>Handlers run on JGroups' receive threads: they must be quick (hand the work to the owner's loop or worker) and
 * thread-safe. Register every handler before the channel connects; the endpoint is then read-only.
 *
 * <pre>{@code
 * MessageEndpoint endpoint = new MessageEndpoint("scheduler", supervisor::fail)
 *         .on(SubmitCall.class, MessageType.SUBMIT_CALL, (source, call) -> ...)
 *         .onView(view -> ...);
 * channel.setReceiver(endpoint);
 * }</pre>
 */
public final class MessageEndpoint implements Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(MessageEndpoint.class);

    private final String role;
    private final Consumer<Throwable> onFailure;
    private final Map<MessageType, BiConsumer<Address, Message>> handlers = new EnumMap<>(MessageType.class);
    private volatile Consumer<View> viewHandler = view -> {};
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong unexpected = new AtomicLong();

    /**
     * {@code role} names this end in log lines and failures (e.g. {@code node-1 control}); {@code onFailure} hears of
     * every handler that threw.
     */
    public MessageEndpoint(String role, Consumer<Throwable> onFailure) {
        this.role = Objects.requireNonNull(role, "role");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
    }

    /**
     * Registers the handler of one message type (once per type, before the channel connects). {@code type} must be the
     * record {@code tag} decodes to.
     */
    public <T extends Message> MessageEndpoint on(Class<T> type, MessageType tag, BiConsumer<Address, T> handler) {
        Objects.requireNonNull(handler, "handler");
        if (tag.messageClass() != type) {
            throw new IllegalArgumentException(role + ": " + tag + " decodes to "
                    + tag.messageClass().getSimpleName() + ", not " + type.getSimpleName());
        }
        if (handlers.putIfAbsent(tag, (source, message) -> handler.accept(source, type.cast(message))) != null) {
            throw new IllegalStateException(role + ": two handlers for " + tag);
        }
        return this;
    }

    /** Registers what happens on a view change (once, before the channel connects). */
    public MessageEndpoint onView(Consumer<View> handler) {
        this.viewHandler = Objects.requireNonNull(handler, "handler");
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
            if (!message.hasArray()) {
                throw new MalformedMessageException(
                        "no byte payload (a JGroups " + message.getClass().getSimpleName() + ")");
            }
            decoded = WireCodec.decode(message.getArray(), message.getOffset(), message.getLength());
        } catch (MalformedMessageException e) {
            malformed.incrementAndGet();
            LOG.warn(
                    "{}: dropped a malformed message from {} ({} malformed so far): {}",
                    role,
                    source,
                    malformed.get(),
                    e.getMessage());
            return;
        } catch (RuntimeException e) {
            // Hostile bytes must not take a process down; but the codec should have said MalformedMessageException.
            malformed.incrementAndGet();
            LOG.warn(
                    "{}: dropped a message from {} that the codec failed on ({} malformed so far)",
                    role,
                    source,
                    malformed.get(),
                    e);
            return;
        }
        BiConsumer<Address, Message> handler = handlers.get(decoded.type());
        if (handler == null) {
            unexpected.incrementAndGet();
            LOG.warn(
                    "{}: dropped an unexpected {} from {} ({} unexpected so far)",
                    role,
                    decoded.describe(),
                    source,
                    unexpected.get());
            return;
        }
        try {
            handler.accept(source, decoded);
        } catch (RuntimeException | Error e) {
            fail(role + ": handling " + decoded.describe() + " from " + source + " failed: " + e, e);
        }
    }

    @Override
    public void viewAccepted(View view) {
        try {
            viewHandler.accept(view);
        } catch (RuntimeException | Error e) {
            fail(role + ": handling view " + view + " failed: " + e, e);
        }
    }

    private void fail(String message, Throwable cause) {
        FatalException failure = new FatalException(message, cause);
        try {
            onFailure.accept(failure);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
            LOG.error("{}: the failure handler itself failed on: {}", role, message, failure);
        }
    }
}
