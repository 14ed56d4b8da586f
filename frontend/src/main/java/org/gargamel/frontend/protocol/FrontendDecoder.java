package org.gargamel.frontend.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts the client's byte stream into {@link FrontendMessage}s. Until the startup message the packets have no type byte
 * (length, code, body); after it, every message is a type byte, a length that counts itself, and a body. A length out
 * of bounds, a body that does not parse or bytes after its end are a {@link ProtocolException} (SQLSTATE 08P01): the
 * session answers with a FATAL error and closes, and the bytes that follow are never read.
 */
public final class FrontendDecoder extends ByteToMessageDecoder {
    /** The protocol's codes in the startup packets. */
    static final int PROTOCOL_3_0 = 196_608;

    static final int SSL_REQUEST = 80_877_103;
    static final int GSSENC_REQUEST = 80_877_104;
    static final int CANCEL_REQUEST = 80_877_102;
    /** PostgreSQL's own limit for a startup packet (MAX_STARTUP_PACKET_LENGTH). */
    static final int MAX_STARTUP_LENGTH = 10_000;

    private final int maxMessageBytes;
    private boolean started;

    /** @param maxMessageBytes the largest message accepted after startup, its length field included */
    public FrontendDecoder(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        while (true) {
            FrontendMessage message = started ? typed(in) : startup(in);
            if (message == null) {
                return;
            }
            if ((message instanceof FrontendMessage.SslRequest || message instanceof FrontendMessage.GssEncRequest)
                    && in.isReadable()) {
                // The client must wait for the answer: bytes sent before it would be read in clear even when TLS
                // follows, and a man in the middle could inject them (CVE-2021-23214). PostgreSQL refuses them too.
                throw new ProtocolException("08P01", "received unencrypted data after SSL request");
            }
            out.add(message);
            if (message instanceof FrontendMessage.SslRequest || message instanceof FrontendMessage.GssEncRequest) {
                return; // the session answers, and may put TLS below this decoder, before anything else is read
            }
            if (message instanceof FrontendMessage.Startup || message instanceof FrontendMessage.CancelRequest) {
                started = true;
            }
            if (message instanceof FrontendMessage.Terminate) {
                return;
            }
        }
    }

    private static FrontendMessage startup(ByteBuf in) {
        if (in.readableBytes() < 4) {
            return null;
        }
        int length = in.getInt(in.readerIndex());
        if (length < 8 || length > MAX_STARTUP_LENGTH) {
            throw new ProtocolException("08P01", "invalid length of startup packet: " + length);
        }
        if (in.readableBytes() < length) {
            return null;
        }
        in.skipBytes(4);
        ByteBuf body = in.readSlice(length - 4);
        int code = body.readInt();
        switch (code) {
            case SSL_REQUEST -> {
                return new FrontendMessage.SslRequest();
            }
            case GSSENC_REQUEST -> {
                return new FrontendMessage.GssEncRequest();
            }
            case CANCEL_REQUEST -> {
                requireReadable(body, 8, "CancelRequest");
                return new FrontendMessage.CancelRequest(body.readInt(), body.readInt());
            }
            default -> {
                if (code >> 16 != 3) {
                    throw new ProtocolException(
                            "0A000",
                            "unsupported frontend protocol " + (code >> 16) + "." + (code & 0xFFFF)
                                    + ": the server supports 3.0");
                }
                Map<String, String> parameters = new LinkedHashMap<>();
                while (true) {
                    String name = string(body, "StartupMessage");
                    if (name.isEmpty()) {
                        break;
                    }
                    parameters.put(name, string(body, "StartupMessage"));
                }
                if (!parameters.containsKey("user")) {
                    throw new ProtocolException("28000", "no PostgreSQL user name specified in startup packet");
                }
                return new FrontendMessage.Startup(code, parameters);
            }
        }
    }

    private FrontendMessage typed(ByteBuf in) {
        if (in.readableBytes() < 5) {
            return null;
        }
        char type = (char) in.getByte(in.readerIndex());
        int length = in.getInt(in.readerIndex() + 1);
        if (length < 4 || length > maxMessageBytes) {
            throw new ProtocolException(
                    "08P01",
                    "invalid message length " + length + " for message type '" + printable(type) + "' (at most "
                            + maxMessageBytes + " bytes)");
        }
        if (in.readableBytes() < length + 1) {
            return null;
        }
        in.skipBytes(5);
        ByteBuf body = in.readSlice(length - 4);
        FrontendMessage message = body(type, body);
        if (body.isReadable()) {
            throw new ProtocolException(
                    "08P01",
                    "invalid message format: " + body.readableBytes() + " byte(s) after the end of a '"
                            + printable(type) + "' message");
        }
        return message;
    }

    private static FrontendMessage body(char type, ByteBuf body) {
        return switch (type) {
            case 'Q' -> new FrontendMessage.Query(string(body, "Query"));
            case 'P' -> {
                String statement = string(body, "Parse");
                String sql = string(body, "Parse");
                int count = unsignedShort(body, "Parse");
                requireReadable(body, 4 * count, "Parse");
                List<Integer> types = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    types.add(body.readInt());
                }
                yield new FrontendMessage.Parse(statement, sql, types);
            }
            case 'B' -> {
                String portal = string(body, "Bind");
                String statement = string(body, "Bind");
                List<Short> formats = shorts(body, "Bind");
                int count = unsignedShort(body, "Bind");
                List<byte[]> values = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    requireReadable(body, 4, "Bind");
                    int length = body.readInt();
                    if (length == -1) {
                        values.add(null);
                    } else {
                        if (length < 0) {
                            throw new ProtocolException(
                                    "08P01", "invalid length " + length + " of parameter " + (i + 1));
                        }
                        requireReadable(body, length, "Bind");
                        byte[] value = new byte[length];
                        body.readBytes(value);
                        values.add(value);
                    }
                }
                yield new FrontendMessage.Bind(portal, statement, formats, values, shorts(body, "Bind"));
            }
            case 'D' -> new FrontendMessage.Describe(kind(body, "Describe"), string(body, "Describe"));
            case 'E' -> {
                String portal = string(body, "Execute");
                requireReadable(body, 4, "Execute");
                yield new FrontendMessage.Execute(portal, body.readInt());
            }
            case 'C' -> new FrontendMessage.Close(kind(body, "Close"), string(body, "Close"));
            case 'S' -> new FrontendMessage.Sync();
            case 'H' -> new FrontendMessage.Flush();
            case 'X' -> new FrontendMessage.Terminate();
            case 'p' -> {
                byte[] bytes = new byte[body.readableBytes()];
                body.readBytes(bytes);
                yield new FrontendMessage.AuthenticationResponse(bytes);
            }
            case 'F', 'd', 'c', 'f' -> {
                body.skipBytes(body.readableBytes());
                yield new FrontendMessage.Unsupported(type);
            }
            default -> throw new ProtocolException("08P01", "invalid frontend message type " + (int) type);
        };
    }

    private static char kind(ByteBuf body, String message) {
        requireReadable(body, 1, message);
        char kind = (char) body.readByte();
        if (kind != 'S' && kind != 'P') {
            throw new ProtocolException("08P01", "invalid " + message + " kind '" + printable(kind) + "' (S or P)");
        }
        return kind;
    }

    private static List<Short> shorts(ByteBuf body, String message) {
        int count = unsignedShort(body, message);
        requireReadable(body, 2 * count, message);
        List<Short> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(body.readShort());
        }
        return values;
    }

    private static int unsignedShort(ByteBuf body, String message) {
        requireReadable(body, 2, message);
        return body.readUnsignedShort();
    }

    /** A NUL-terminated UTF-8 string. */
    static String string(ByteBuf body, String message) {
        int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new ProtocolException("08P01", "invalid " + message + " message: a string without its terminator");
        }
        String value = body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8);
        body.readerIndex(end + 1);
        return value;
    }

    private static void requireReadable(ByteBuf body, int bytes, String message) {
        if (body.readableBytes() < bytes) {
            throw new ProtocolException("08P01", "invalid " + message + " message: truncated");
        }
    }

    private static String printable(char type) {
        return type >= 32 && type < 127 ? String.valueOf(type) : "\\x" + Integer.toHexString(type);
    }
}
