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
}
