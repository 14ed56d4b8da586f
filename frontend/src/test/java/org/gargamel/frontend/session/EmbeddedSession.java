package org.gargamel.frontend.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.frontend.auth.ScramVerifier;
import org.gargamel.frontend.protocol.FrontendDecoder;
import org.gargamel.frontend.sql.CallBuilder;
import org.gargamel.frontend.sql.StatementParser;

/**
 * A {@link Session} in an {@link EmbeddedChannel} behind the real decoder, with a cluster of its own that answers every
 * call at once from {@code answer} and records it: no cluster, no PostgreSQL, no sleeping (an outcome is a task of the
 * embedded event loop, run before the answers are read). Writes client messages, reads the server's.
 */
final class EmbeddedSession implements AutoCloseable {
    static final ClassifierRules RULES =
            ClassifierRules.loadResource(EmbeddedSession.class, "/org/gargamel/frontend/shop-rules.yaml");
    static final String USER = "tester";
    static final String PASSWORD = "secret";
    static final ScramVerifier VERIFIER = ScramVerifier.fromPassword(PASSWORD, new SecureRandom());

    /** A server message: its type and body. */
    @SuppressWarnings("ArrayRecordComponent") // read once, by the test that got it
    record Message(char type, byte[] body) {
        /** A short text for assertions: type, and the tag, SQLSTATE, status, column names or values it carries. */
        String brief() {
            ByteBuf in = Unpooled.wrappedBuffer(body);
            return switch (type) {
                case 'C' -> "C " + cString(in);
                case 'Z' -> "Z " + (char) in.readByte();
                case 'E', 'N' -> type + " " + field(in, 'C');
                case 'R' -> "R" + in.readInt();
                case 'D' -> "D " + values(in);
                case 'T' -> "T " + columns(in);
                default -> String.valueOf(type);
            };
        }
    }

    final List<ProcedureCall> calls = new ArrayList<>();
    final EmbeddedChannel channel;
    private final Function<ProcedureCall, CallOutcome> answer;

    EmbeddedSession(boolean trust, ClientLimits limits, Function<ProcedureCall, CallOutcome> answer) {
        this.answer = answer;
        SessionContext shared = new SessionContext(
                () -> call -> {
                    calls.add(call);
                    return CompletableFuture.completedFuture(this.answer.apply(call));
                },
                new StatementParser(RULES.procedures().keySet()),
                new CallBuilder(RULES),
                new CallShapes(),
                trust,
                Map.of(USER, VERIFIER),
                Map.of(),
                "15.0",
                10,
                new AtomicInteger(),
                new SecureRandom(),
                null,
                false,
                new CancelKeys(),
                new AtomicLong(),
                limits,
                new ConcurrentHashMap<>(),
                ExecutePrivileges.nodeDecides());
        channel = new EmbeddedChannel();
        channel.pipeline().addLast("decoder", new FrontendDecoder(1 << 20)).addLast("session", new Session(shared));
    }

    /** A trusting session, logged in as {@link #USER}, its startup answers read. */
    static EmbeddedSession loggedIn(Function<ProcedureCall, CallOutcome> answer) {
        EmbeddedSession session = new EmbeddedSession(true, new ClientLimits(0, 60, 0), answer);
        session.send(out -> startup(out, USER));
        session.answers();
        return session;
    }

    /** Sends what {@code messages} writes as one read, runs the loop's tasks, and returns every answer since. */
    List<String> exchange(Consumer<ByteBuf> messages) {
        send(messages);
        return briefs(answers());
    }

    void send(Consumer<ByteBuf> messages) {
        ByteBuf in = Unpooled.buffer();
        messages.accept(in);
        channel.writeInbound(in);
        channel.runPendingTasks();
    }

    /** Every server message written since the last call. */
    List<Message> answers() {
        ByteBuf all = Unpooled.buffer();
        for (Object written = channel.readOutbound(); written != null; written = channel.readOutbound()) {
            ByteBuf buffer = (ByteBuf) written;
            all.writeBytes(buffer);
            buffer.release();
        }
        List<Message> messages = new ArrayList<>();
        while (all.isReadable()) {
            char type = (char) all.readByte();
            byte[] body = new byte[all.readInt() - 4];
            all.readBytes(body);
            messages.add(new Message(type, body));
        }
        return messages;
    }

    /** The raw bytes written since the last call (for answers that are not framed messages, like SSLRequest's). */
    byte[] rawAnswers() {
        ByteBuf all = Unpooled.buffer();
        for (Object written = channel.readOutbound(); written != null; written = channel.readOutbound()) {
            ByteBuf buffer = (ByteBuf) written;
            all.writeBytes(buffer);
            buffer.release();
        }
        byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        return bytes;
    }

    static List<String> briefs(List<Message> messages) {
        List<String> briefs = new ArrayList<>();
        for (Message message : messages) {
            if (message.type() != 'S' && message.type() != 'K') { // ParameterStatus and BackendKeyData: not asserted
                briefs.add(message.brief());
            }
        }
        return briefs;
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
    }

    // ---- client messages (PostgreSQL protocol 3.0)

    static void startup(ByteBuf out, String user) {
        byte[] parameters = ("user\0" + user + "\0database\0shop\0\0").getBytes(StandardCharsets.UTF_8);
        out.writeInt(8 + parameters.length);
        out.writeInt(196_608);
        out.writeBytes(parameters);
    }

    static void sslRequest(ByteBuf out) {
        out.writeInt(8);
        out.writeInt(80_877_103);
    }

    static void cancelRequest(ByteBuf out, int processId, int secretKey) {
        out.writeInt(16);
        out.writeInt(80_877_102);
        out.writeInt(processId);
        out.writeInt(secretKey);
    }

    static void query(ByteBuf out, String sql) {
        typed(out, 'Q', body -> cString(body, sql));
    }

    static void parse(ByteBuf out, String statement, String sql) {
        typed(out, 'P', body -> {
            cString(body, statement);
            cString(body, sql);
            body.writeShort(0);
        });
    }

    /** Bind with every value and result in text. */
    static void bind(ByteBuf out, String portal, String statement, String... values) {
        typed(out, 'B', body -> {
            cString(body, portal);
            cString(body, statement);
            body.writeShort(0);
            body.writeShort(values.length);
            for (String value : values) {
                byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                body.writeInt(bytes.length);
                body.writeBytes(bytes);
            }
            body.writeShort(0);
        });
    }

    static void describePortal(ByteBuf out, String portal) {
        typed(out, 'D', body -> {
            body.writeByte('P');
            cString(body, portal);
        });
    }

    static void execute(ByteBuf out, String portal, int maxRows) {
        typed(out, 'E', body -> {
            cString(body, portal);
            body.writeInt(maxRows);
        });
    }

    static void sync(ByteBuf out) {
        typed(out, 'S', body -> {});
    }

    static void saslInitial(ByteBuf out, String mechanism, String clientFirst) {
        byte[] data = clientFirst.getBytes(StandardCharsets.UTF_8);
        typed(out, 'p', body -> {
            cString(body, mechanism);
            body.writeInt(data.length);
            body.writeBytes(data);
        });
    }

    static void saslResponse(ByteBuf out, String clientFinal) {
        typed(out, 'p', body -> body.writeBytes(clientFinal.getBytes(StandardCharsets.UTF_8)));
    }

    private static void typed(ByteBuf out, char type, Consumer<ByteBuf> body) {
        out.writeByte(type);
        int start = out.writerIndex();
        out.writeInt(0);
        body.accept(out);
        out.setInt(start, out.writerIndex() - start);
    }

    private static void cString(ByteBuf out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
    }

    // ---- reading server messages

    static String cString(ByteBuf in) {
        int end = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0);
        String text = in.toString(in.readerIndex(), end - in.readerIndex(), StandardCharsets.UTF_8);
        in.readerIndex(end + 1);
        return text;
    }

    /** A field of an ErrorResponse or NoticeResponse, by its code. */
    static String field(ByteBuf in, char code) {
        String found = null;
        for (byte type = in.readByte(); type != 0; type = in.readByte()) {
            String value = cString(in);
            if (type == code) {
                found = value;
            }
        }
        return found;
    }

    private static String values(ByteBuf in) {
        List<String> values = new ArrayList<>();
        for (int i = in.readShort(); i > 0; i--) {
            int length = in.readInt();
            values.add(
                    length < 0
                            ? "null"
                            : in.readCharSequence(length, StandardCharsets.UTF_8)
                                    .toString());
        }
        return String.join("|", values);
    }

    private static String columns(ByteBuf in) {
        List<String> names = new ArrayList<>();
        for (int i = in.readShort(); i > 0; i--) {
            names.add(cString(in));
            in.skipBytes(18);
        }
        return String.join("|", names);
    }
}
