package org.gargamel.frontend.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The decoder on Netty's in-memory channel: bytes in, messages out, no socket. */
@Tag("unit")
class FrontendDecoderTest {
    private final EmbeddedChannel channel = new EmbeddedChannel(new FrontendDecoder(1024));

    @Test
    void startupPacketsThenTypedMessagesEvenWhenSplitAnywhere() {
        ByteBuf bytes = Unpooled.buffer();
        bytes.writeInt(8).writeInt(FrontendDecoder.SSL_REQUEST);
        ByteBuf startup = Unpooled.buffer();
        startup.writeInt(FrontendDecoder.PROTOCOL_3_0);
        cString(startup, "user");
        cString(startup, "app");
        cString(startup, "database");
        cString(startup, "shop");
        startup.writeByte(0);
        bytes.writeInt(startup.readableBytes() + 4).writeBytes(startup);
        typed(bytes, 'Q', body -> cString(body, "SELECT 1"));
        typed(bytes, 'P', body -> {
            cString(body, "s1");
            cString(body, "SELECT p($1)");
            body.writeShort(1).writeInt(23);
        });
        typed(bytes, 'B', body -> {
            cString(body, "");
            cString(body, "s1");
            body.writeShort(1).writeShort(1);
            body.writeShort(2).writeInt(4).writeInt(42).writeInt(-1);
            body.writeShort(0);
        });
        typed(bytes, 'E', body -> {
            cString(body, "");
            body.writeInt(0);
        });
        typed(bytes, 'S', body -> {});
        while (bytes.isReadable()) { // one byte at a time: every split point
            channel.writeInbound(bytes.readRetainedSlice(1));
        }
        assertInstanceOf(FrontendMessage.SslRequest.class, channel.readInbound());
        FrontendMessage.Startup decoded = channel.readInbound();
        assertEquals(Map.of("user", "app", "database", "shop"), decoded.parameters());
        assertEquals(new FrontendMessage.Query("SELECT 1"), channel.readInbound());
        assertEquals(new FrontendMessage.Parse("s1", "SELECT p($1)", List.of(23)), channel.readInbound());
        FrontendMessage.Bind bind = channel.readInbound();
        assertEquals(List.of((short) 1), bind.parameterFormats());
        assertArrayEquals(new byte[] {0, 0, 0, 42}, bind.values().get(0));
        assertNull(bind.values().get(1));
        assertEquals(new FrontendMessage.Execute("", 0), channel.readInbound());
        assertInstanceOf(FrontendMessage.Sync.class, channel.readInbound());
        assertNull(channel.readInbound());
    }

    @Test
    void anOversizedMessageIsAProtocolViolation() {
        startup();
        ByteBuf bytes = Unpooled.buffer().writeByte('Q').writeInt(1_000_000);
        ProtocolException error = violation(bytes);
        assertEquals("08P01", error.sqlState());
        assertTrue(error.getMessage().contains("invalid message length 1000000"), error.getMessage());
    }

    @Test
    void garbageAndUnknownTypesAreProtocolViolations() {
        assertEquals(
                "08P01",
                violation(Unpooled.wrappedBuffer(new byte[] {(byte) 0xFF, 1, 2, 3, 4, 5}))
                        .sqlState());
        EmbeddedChannel other = new EmbeddedChannel(new FrontendDecoder(1024));
        ByteBuf startup = Unpooled.buffer();
        startup.writeInt(FrontendDecoder.PROTOCOL_3_0);
        cString(startup, "user");
        cString(startup, "app");
        startup.writeByte(0);
        other.writeInbound(
                Unpooled.buffer().writeInt(startup.readableBytes() + 4).writeBytes(startup));
        other.readInbound();
        DecoderException error = assertThrows(
                DecoderException.class,
                () -> other.writeInbound(Unpooled.buffer().writeByte('!').writeInt(4)));
        assertTrue(error.getCause().getMessage().contains("invalid frontend message type 33"));
    }

    @Test
    void aStartupWithoutUserIsRefused() {
        ByteBuf startup = Unpooled.buffer();
        startup.writeInt(FrontendDecoder.PROTOCOL_3_0);
        startup.writeByte(0);
        ProtocolException error = violation(
                Unpooled.buffer().writeInt(startup.readableBytes() + 4).writeBytes(startup));
        assertEquals("28000", error.sqlState());
    }

    private void startup() {
        ByteBuf startup = Unpooled.buffer();
        startup.writeInt(FrontendDecoder.PROTOCOL_3_0);
        cString(startup, "user");
        cString(startup, "app");
        startup.writeByte(0);
        channel.writeInbound(
                Unpooled.buffer().writeInt(startup.readableBytes() + 4).writeBytes(startup));
        channel.readInbound();
    }

    private ProtocolException violation(ByteBuf bytes) {
        DecoderException error = assertThrows(DecoderException.class, () -> channel.writeInbound(bytes));
        return assertInstanceOf(ProtocolException.class, error.getCause());
    }

    private static void typed(ByteBuf out, char type, java.util.function.Consumer<ByteBuf> body) {
        ByteBuf content = Unpooled.buffer();
        body.accept(content);
        out.writeByte(type).writeInt(content.readableBytes() + 4).writeBytes(content);
    }

    private static void cString(ByteBuf out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8)).writeByte(0);
    }

    /**
     * A fuzzer over the decoder (issue 38's hostile-input matrix): 5,000 streams, each a valid stream of every message
     * kind with bytes flipped, dropped, inserted or cut off (or random bytes from the start), fed in random pieces. The
     * decoder yields messages or a ProtocolException (which ends the connection with a FATAL), never another
     * exception (an index out of bounds, a negative size) that would reach the session as an internal error. Seeded: a
     * failure names the seed of its stream.
     */
    @Test
    void hostileBytesGiveMessagesOrAProtocolViolationNeverAnotherFailure() {
        byte[] valid = validStream();
        java.util.Random seeds = new java.util.Random(38);
        for (int round = 0; round < 5_000; round++) {
            long seed = seeds.nextLong();
            java.util.Random random = new java.util.Random(seed);
            byte[] input = mutate(valid, random);
            EmbeddedChannel fuzzed = new EmbeddedChannel(new FrontendDecoder(1024));
            int offset = 0;
            try {
                while (offset < input.length) {
                    int piece = Math.min(input.length - offset, 1 + random.nextInt(64));
                    fuzzed.writeInbound(Unpooled.wrappedBuffer(input, offset, piece));
                    offset += piece;
                    for (Object message = fuzzed.readInbound(); message != null; message = fuzzed.readInbound()) {
                        assertInstanceOf(FrontendMessage.class, message, "seed " + seed);
                    }
                }
            } catch (DecoderException e) {
                assertInstanceOf(ProtocolException.class, e.getCause(), "seed " + seed + ": " + e.getCause());
            }
            try {
                fuzzed.finishAndReleaseAll(); // the connection closes: what is left is decoded once more
            } catch (DecoderException e) {
                assertInstanceOf(ProtocolException.class, e.getCause(), "seed " + seed + ": " + e.getCause());
            }
        }
    }

    /** A startup, then one message of every kind a client sends after it. */
    private static byte[] validStream() {
        ByteBuf bytes = Unpooled.buffer();
        ByteBuf startup = Unpooled.buffer();
        startup.writeInt(FrontendDecoder.PROTOCOL_3_0);
        cString(startup, "user");
        cString(startup, "app");
        cString(startup, "options");
        cString(startup, "-c search_path=x");
        startup.writeByte(0);
        bytes.writeInt(startup.readableBytes() + 4).writeBytes(startup);
        typed(bytes, 'p', body -> {
            cString(body, "SCRAM-SHA-256");
            body.writeInt(8).writeBytes("n,,n=,r=".getBytes(StandardCharsets.US_ASCII));
        });
        typed(bytes, 'Q', body -> cString(body, "SELECT 1; SELECT 2"));
        typed(bytes, 'P', body -> {
            cString(body, "s1");
            cString(body, "SELECT p($1, $2)");
            body.writeShort(2).writeInt(23).writeInt(0);
        });
        typed(bytes, 'B', body -> {
            cString(body, "portal");
            cString(body, "s1");
            body.writeShort(2).writeShort(1).writeShort(0);
            body.writeShort(2).writeInt(4).writeInt(42).writeInt(-1);
            body.writeShort(1).writeShort(1);
        });
        typed(bytes, 'D', body -> {
            body.writeByte('P');
            cString(body, "portal");
        });
        typed(bytes, 'E', body -> {
            cString(body, "portal");
            body.writeInt(10);
        });
        typed(bytes, 'C', body -> {
            body.writeByte('S');
            cString(body, "s1");
        });
        typed(bytes, 'H', body -> {});
        typed(bytes, 'S', body -> {});
        typed(bytes, 'X', body -> {});
        byte[] array = new byte[bytes.readableBytes()];
        bytes.readBytes(array);
        return array;
    }

    /** {@code valid} with a few random mutations, or random bytes outright. */
    private static byte[] mutate(byte[] valid, java.util.Random random) {
        if (random.nextInt(10) == 0) {
            byte[] noise = new byte[random.nextInt(200)];
            random.nextBytes(noise);
            return noise;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(valid, 0, valid.length);
        byte[] bytes = out.toByteArray();
        int mutations = 1 + random.nextInt(4);
        for (int i = 0; i < mutations && bytes.length > 0; i++) {
            int at = random.nextInt(bytes.length);
            switch (random.nextInt(4)) {
                case 0 -> bytes[at] = (byte) random.nextInt(256); // flipped
                case 1 -> bytes = java.util.Arrays.copyOf(bytes, at); // cut off
                case 2 -> { // a byte dropped
                    byte[] shorter = new byte[bytes.length - 1];
                    System.arraycopy(bytes, 0, shorter, 0, at);
                    System.arraycopy(bytes, at + 1, shorter, at, bytes.length - at - 1);
                    bytes = shorter;
                }
                default -> { // a byte inserted
                    byte[] longer = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, longer, 0, at);
                    longer[at] = (byte) random.nextInt(256);
                    System.arraycopy(bytes, at, longer, at + 1, bytes.length - at);
                    bytes = longer;
                }
            }
        }
        return bytes;
    }
}
