package org.gargamel.common.wire;

import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;

/**
 * Encodes and decodes {@link Message}s: a type byte, then the body. Values of call arguments carry a tag
 * byte each. Decoding checks every length against a limit, so a malformed or hostile message fails with a
 * {@link MalformedMessageException} naming the problem instead of exhausting memory.
 */
public final class WireCodec {
    /** Upper bound on any length or count inside a message (strings, arrays, changes). */
    static final int MAX_COUNT = 64 * 1024 * 1024;

    private static final byte NULL = 0;
    private static final byte INTEGER = 1;
    private static final byte BIGINT = 2;
    private static final byte NUMERIC = 3;
    private static final byte TEXT = 4;
    private static final byte TIMESTAMP = 5;
    private static final byte ARRAY = 6;

    private WireCodec() {}

    public static byte[] encode(Message message) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(message.type().tag());
            message.writeBody(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen on a byte array
        }
        return bytes.toByteArray();
    }

    public static Message decode(byte[] buffer) {
        return decode(buffer, 0, buffer.length);
    }

    public static Message decode(byte[] buffer, int offset, int length) {
        if (length == 0) {
            throw new MalformedMessageException("empty message");
        }
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(buffer, offset, length));
        MessageType type = null;
        try {
            type = MessageType.ofTag(in.readByte());
            Message message = switch (type) {
                case SUBMIT_CALL -> SubmitCall.read(in);
                case CALL_OUTCOME -> CallOutcome.read(in);
                case EXECUTE -> Execute.read(in);
                case NODE_HELLO -> NodeHello.read(in);
                case PROGRESS -> Progress.read(in);
                case WRITE_SET -> WriteSet.read(in);
                case DRAIN_QUERY -> DrainQuery.read(in);
                case DRAIN_STATUS -> DrainStatus.read(in);
                case ABANDON -> Abandon.read(in);
                case LOG_MARK -> LogMark.read(in);
                case SETTLEMENT -> Settlement.read(in);
                case NODE_REFUSED -> NodeRefused.read(in);
                case TAKE_OVER -> TakeOver.read(in);
                case EPOCH_CLAIM -> EpochClaim.read(in);
                case EPOCH_GRANTED -> EpochGranted.read(in);
                case SUPERSEDED -> Superseded.read(in);
                case SCHEDULE_CALL -> ScheduleCall.read(in);
                case AGREEMENT -> Agreement.read(in);
                case VISIBILITY_QUERY -> VisibilityQuery.read(in);
                case SCHEDULE_PLACEMENT -> SchedulePlacement.read(in);
                case SHIPPED -> Shipped.read(in);
            };
            if (in.available() > 0) {
                throw new MalformedMessageException(type + ": " + in.available() + " unexpected trailing bytes");
            }
            return message;
        } catch (EOFException e) {
            throw new MalformedMessageException((type == null ? "message" : type.toString()) + " is truncated", e);
        } catch (IOException e) {
            throw new MalformedMessageException("unreadable " + (type == null ? "message" : type.toString()), e);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("invalid " + type + ": " + e.getMessage(), e);
        }
    }

    static void writeString(DataOutput out, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(DataInput in) throws IOException {
        int length = readCount(in, "string length");
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static void writeNullableString(DataOutput out, String value) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            writeString(out, value);
        }
    }

    static String readNullableString(DataInput in) throws IOException {
        return in.readBoolean() ? readString(in) : null;
    }

    static void writeLongs(DataOutput out, long[] values) throws IOException {
        out.writeInt(values.length);
        for (long value : values) {
            out.writeLong(value);
        }
    }

    static long[] readLongs(DataInput in) throws IOException {
        int count = readCount(in, "id list length");
        long[] values = new long[Math.min(count, 4096)];
        for (int i = 0; i < count; i++) {
            if (i == values.length) {
                values = java.util.Arrays.copyOf(values, Math.min(count, values.length * 2));
            }
            values[i] = in.readLong();
        }
        return values;
    }

    static int readCount(DataInput in, String what) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > MAX_COUNT) {
            throw new MalformedMessageException(what + " " + count + " is out of range [0, " + MAX_COUNT + "]");
        }
        return count;
    }

    /**
     * Written where a call's procedure name goes, it says an ad-hoc query follows (no PostgreSQL identifier holds a
     * NUL); then {@link #AD_HOC_VERSION}, the kind, the SQL, the parameter types and the parameter values.
     */
    static final String AD_HOC_MARKER = "\0ad-hoc";

    /** The layout of an ad-hoc query on the wire; a reader refuses any other. */
    static final int AD_HOC_VERSION = 1;

    /**
     * Written where a call's procedure name goes, it says the call runs as a database role: the role's name follows,
     * then the call as it would be written without one. Calls without a role (library clients) keep the layout they
     * always had.
     */
    static final String ROLE_MARKER = "\0as-role";

    static void writeCall(DataOutput out, ProcedureCall call) throws IOException {
        if (call.role() != null) {
            writeString(out, ROLE_MARKER);
            writeString(out, call.role());
        }
        if (call.adHoc() != null) {
            writeAdHoc(out, call.adHoc());
            return;
        }
        writeString(out, call.procedure());
        out.writeInt(call.arguments().size());
        for (Object argument : call.arguments()) {
            writeValue(out, argument);
        }
    }

    static ProcedureCall readCall(DataInput in) throws IOException {
        String procedure = readString(in);
        if (procedure.equals(ROLE_MARKER)) {
            String role = readString(in);
            ProcedureCall call = readCallWithoutRole(in, readString(in));
            try {
                return call.asRole(role);
            } catch (IllegalArgumentException e) {
                throw new MalformedMessageException("a call as role '" + role + "': " + e.getMessage(), e);
            }
        }
        return readCallWithoutRole(in, procedure);
    }

    private static ProcedureCall readCallWithoutRole(DataInput in, String procedure) throws IOException {
        if (procedure.equals(ROLE_MARKER)) {
            throw new MalformedMessageException("a call names its role twice");
        }
        if (procedure.equals(AD_HOC_MARKER)) {
            return ProcedureCall.adHoc(readAdHoc(in));
        }
        int count = readCount(in, "argument count");
        List<Object> arguments = new ArrayList<>(Math.min(count, 64));
        for (int i = 0; i < count; i++) {
            arguments.add(readValue(in, true));
        }
        return new ProcedureCall(procedure, arguments);
    }

    private static void writeAdHoc(DataOutput out, AdHocQuery query) throws IOException {
        writeString(out, AD_HOC_MARKER);
        out.writeByte(AD_HOC_VERSION);
        out.writeByte(query.kind().code());
        writeString(out, query.sql());
        out.writeInt(query.parameterTypes().size());
        for (int type : query.parameterTypes()) {
            out.writeInt(type);
        }
        out.writeInt(query.parameters().size());
        for (String value : query.parameters()) {
            writeNullableString(out, value);
        }
    }

    private static AdHocQuery readAdHoc(DataInput in) throws IOException {
        int version = in.readUnsignedByte();
        if (version != AD_HOC_VERSION) {
            throw new MalformedMessageException(
                    "ad-hoc query of layout version " + version + " (this build reads " + AD_HOC_VERSION + ")");
        }
        int code = in.readUnsignedByte();
        AdHocQuery.Kind kind = AdHocQuery.Kind.ofCode(code);
        if (kind == null) {
            throw new MalformedMessageException("ad-hoc query of unknown kind " + code);
        }
        String sql = readString(in);
        int typeCount = readCount(in, "ad-hoc parameter type count");
        List<Integer> types = new ArrayList<>(Math.min(typeCount, 64));
        for (int i = 0; i < typeCount; i++) {
            types.add(in.readInt());
        }
        int valueCount = readCount(in, "ad-hoc parameter count");
        List<String> values = new ArrayList<>(Math.min(valueCount, 64));
        for (int i = 0; i < valueCount; i++) {
            values.add(readNullableString(in));
        }
        return new AdHocQuery(kind, sql, types, values); // IllegalArgumentException: a malformed message
    }

    private static void writeValue(DataOutput out, Object value) throws IOException {
        if (value == null) {
            out.writeByte(NULL);
        } else if (value instanceof Integer integer) {
            out.writeByte(INTEGER);
            out.writeInt(integer);
        } else if (value instanceof Long bigint) {
            out.writeByte(BIGINT);
            out.writeLong(bigint);
        } else if (value instanceof BigDecimal numeric) {
            out.writeByte(NUMERIC);
            out.writeInt(numeric.scale());
            byte[] unscaled = numeric.unscaledValue().toByteArray();
            out.writeInt(unscaled.length);
            out.write(unscaled);
        } else if (value instanceof String text) {
            out.writeByte(TEXT);
            writeString(out, text);
        } else if (value instanceof LocalDateTime timestamp) {
            out.writeByte(TIMESTAMP);
            out.writeLong(timestamp.toEpochSecond(ZoneOffset.UTC));
            out.writeInt(timestamp.get(ChronoField.NANO_OF_SECOND)); // the fraction of that second
        } else if (value instanceof List<?> list) {
            out.writeByte(ARRAY);
            out.writeInt(list.size());
            for (Object element : list) {
                writeValue(out, element);
            }
        } else {
            throw new IllegalArgumentException(
                    "cannot encode argument of type " + value.getClass().getName());
        }
    }

    private static Object readValue(DataInput in, boolean arrayAllowed) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case INTEGER -> in.readInt();
            case BIGINT -> in.readLong();
            case NUMERIC -> {
                int scale = in.readInt();
                byte[] unscaled = new byte[readCount(in, "numeric length")];
                in.readFully(unscaled);
                if (unscaled.length == 0) {
                    throw new MalformedMessageException("numeric argument without digits");
                }
                yield new BigDecimal(new BigInteger(unscaled), scale);
            }
            case TEXT -> readString(in);
            case TIMESTAMP -> {
                long seconds = in.readLong();
                int nanos = in.readInt();
                try {
                    yield LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
                } catch (java.time.DateTimeException e) {
                    throw new MalformedMessageException("timestamp argument out of range: " + e.getMessage(), e);
                }
            }
            case ARRAY -> {
                if (!arrayAllowed) {
                    throw new MalformedMessageException("nested array argument");
                }
                int count = readCount(in, "array length");
                List<Object> elements = new ArrayList<>(Math.min(count, 1024));
                for (int i = 0; i < count; i++) {
                    elements.add(readValue(in, false));
                }
                yield elements;
            }
            default -> throw new MalformedMessageException("unknown argument value tag " + tag);
        };
    }
}
