package org.gargamel.frontend.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes the server's messages (PostgreSQL protocol 3.0, "Message Formats") into a buffer: a type byte, a length that
 * counts itself, and the body. Each method appends one message.
 */
public final class BackendMessages {
    private BackendMessages() {}

    /** A column of a RowDescription: its name, type OID, type length (-1: variable) and format (0 text, 1 binary). */
    public record Field(String name, int typeOid, short typeLength, short format) {}

    public static void authenticationOk(ByteBuf out) {
        authentication(out, 0, null);
    }

    public static void authenticationCleartextPassword(ByteBuf out) {
        authentication(out, 3, null);
    }

    /** AuthenticationSASL offering {@code mechanisms}. */
    public static void authenticationSasl(ByteBuf out, List<String> mechanisms) {
        int start = begin(out, 'R');
        out.writeInt(10);
        for (String mechanism : mechanisms) {
            cString(out, mechanism);
        }
        out.writeByte(0);
        end(out, start);
    }

    public static void authenticationSaslContinue(ByteBuf out, byte[] data) {
        authentication(out, 11, data);
    }

    public static void authenticationSaslFinal(ByteBuf out, byte[] data) {
        authentication(out, 12, data);
    }

    private static void authentication(ByteBuf out, int code, byte[] data) {
        int start = begin(out, 'R');
        out.writeInt(code);
        if (data != null) {
            out.writeBytes(data);
        }
        end(out, start);
    }

    public static void parameterStatus(ByteBuf out, String name, String value) {
        int start = begin(out, 'S');
        cString(out, name);
        cString(out, value);
        end(out, start);
    }

    public static void backendKeyData(ByteBuf out, int processId, int secretKey) {
        int start = begin(out, 'K');
        out.writeInt(processId);
        out.writeInt(secretKey);
        end(out, start);
    }

    /** ReadyForQuery: 'I' idle, 'T' in a transaction block, 'E' in a failed transaction block. */
    public static void readyForQuery(ByteBuf out, char status) {
        int start = begin(out, 'Z');
        out.writeByte(status);
        end(out, start);
    }

    public static void rowDescription(ByteBuf out, List<Field> fields) {
        int start = begin(out, 'T');
        out.writeShort(fields.size());
        for (Field field : fields) {
            cString(out, field.name());
            out.writeInt(0); // table OID: not a column of a table
            out.writeShort(0); // attribute number
            out.writeInt(field.typeOid());
            out.writeShort(field.typeLength());
            out.writeInt(-1); // type modifier
            out.writeShort(field.format());
        }
        end(out, start);
    }

    /** DataRow: each value already encoded in its column's format; null is SQL NULL. */
    public static void dataRow(ByteBuf out, List<byte[]> values) {
        int start = begin(out, 'D');
        out.writeShort(values.size());
        for (byte[] value : values) {
            if (value == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(value.length);
                out.writeBytes(value);
            }
        }
        end(out, start);
    }

    public static void commandComplete(ByteBuf out, String tag) {
        int start = begin(out, 'C');
        cString(out, tag);
        end(out, start);
    }

    public static void emptyQueryResponse(ByteBuf out) {
        empty(out, 'I');
    }

    public static void parseComplete(ByteBuf out) {
        empty(out, '1');
    }

    public static void bindComplete(ByteBuf out) {
        empty(out, '2');
    }

    public static void closeComplete(ByteBuf out) {
        empty(out, '3');
    }

    public static void noData(ByteBuf out) {
        empty(out, 'n');
    }

    public static void portalSuspended(ByteBuf out) {
        empty(out, 's');
    }

    public static void parameterDescription(ByteBuf out, List<Integer> typeOids) {
        int start = begin(out, 't');
        out.writeShort(typeOids.size());
        for (int oid : typeOids) {
            out.writeInt(oid);
        }
        end(out, start);
    }

    /** ErrorResponse ('E') or NoticeResponse ('N'): each field by its code (S, V, C, M, D, H...), in order. */
    public static void errorOrNotice(ByteBuf out, char type, Map<Character, String> fields) {
        int start = begin(out, type);
        fields.forEach((code, value) -> {
            if (value != null) {
                out.writeByte(code);
                cString(out, value);
            }
        });
        out.writeByte(0);
        end(out, start);
    }

    /** The single byte that answers SSLRequest and GSSENCRequest: 'N', not supported (or 'S' for TLS). */
    public static void singleByte(ByteBuf out, char answer) {
        out.writeByte(answer);
    }

    private static void empty(ByteBuf out, char type) {
        out.writeByte(type);
        out.writeInt(4);
    }

    private static int begin(ByteBuf out, char type) {
        out.writeByte(type);
        int start = out.writerIndex();
        out.writeInt(0); // the length, filled in by end()
        return start;
    }

    private static void end(ByteBuf out, int start) {
        out.setInt(start, out.writerIndex() - start);
    }

    private static void cString(ByteBuf out, String value) {
        out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
    }
}
