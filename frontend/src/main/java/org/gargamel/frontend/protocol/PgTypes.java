package org.gargamel.frontend.protocol;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL types the front end moves between text and binary formats: their OIDs (pg_type), lengths, and the
 * binary encodings of the protocol ("send"/"recv" functions) for the scalars and one-dimensional arrays procedures
 * use. A value in a type or format it does not know is refused with SQLSTATE 0A000, never sent wrong.
 */
public final class PgTypes {
    public static final int BOOL = 16;
    public static final int BYTEA = 17;
    public static final int NAME = 19;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int OID = 26;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    public static final int UNKNOWN = 705;
    public static final int BPCHAR = 1042;
    public static final int VARCHAR = 1043;
    public static final int DATE = 1082;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int NUMERIC = 1700;
    public static final int RECORD = 2249;
    public static final int VOID = 2278;

    /** Array type OID to its element type OID. */
    private static final Map<Integer, Integer> ARRAY_ELEMENTS = Map.ofEntries(
            Map.entry(1000, BOOL),
            Map.entry(1005, INT2),
            Map.entry(1007, INT4),
            Map.entry(1009, TEXT),
            Map.entry(1015, VARCHAR),
            Map.entry(1014, BPCHAR),
            Map.entry(1016, INT8),
            Map.entry(1021, FLOAT4),
            Map.entry(1022, FLOAT8),
            Map.entry(1115, TIMESTAMP),
            Map.entry(1182, DATE),
            Map.entry(1231, NUMERIC));

    private static final LocalDateTime POSTGRES_EPOCH = LocalDateTime.of(2000, 1, 1, 0, 0);
    private static final LocalDate POSTGRES_EPOCH_DATE = LocalDate.of(2000, 1, 1);
    private static final DateTimeFormatter TIMESTAMP_TEXT = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd[ ]['T']HH:mm[:ss]")
            .optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
            .optionalEnd()
            .toFormatter();
    private static final DateTimeFormatter TIMESTAMP_OUT = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart()
            .appendFraction(ChronoField.MICRO_OF_SECOND, 0, 6, true)
            .optionalEnd()
            .toFormatter();
    private static final short NUMERIC_POSITIVE = 0x0000;
    private static final short NUMERIC_NEGATIVE = 0x4000;
    private static final short NUMERIC_NAN = (short) 0xC000;
    private static final BigInteger TEN_THOUSAND = BigInteger.valueOf(10_000);

    private PgTypes() {}

    /** A value that cannot be read or written as asked: its SQLSTATE and message go to the client. */
    public static final class ValueException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String sqlState;

        public ValueException(String sqlState, String message) {
            super(message);
            this.sqlState = sqlState;
        }

        public String sqlState() {
            return sqlState;
        }
    }

    /** The element type of array type {@code oid}, or 0 if it is not an array type this front end knows. */
    public static int elementOf(int oid) {
        return ARRAY_ELEMENTS.getOrDefault(oid, 0);
    }

    /** The array type whose elements are {@code elementOid}, or 0. */
    public static int arrayOf(int elementOid) {
        for (Map.Entry<Integer, Integer> entry : ARRAY_ELEMENTS.entrySet()) {
            if (entry.getValue() == elementOid) {
                return entry.getKey();
            }
        }
        return 0;
    }

    /** pg_type.typlen: the fixed size of a value, or -1 for a variable length. */
    public static short typeLength(int oid) {
        return switch (oid) {
            case BOOL -> 1;
            case INT2 -> 2;
            case INT4, OID, FLOAT4, DATE -> 4;
            case INT8, FLOAT8, TIMESTAMP, TIMESTAMPTZ -> 8;
            default -> -1;
        };
    }

    /** A result value (PostgreSQL's text format) in the format the client asked for: 0 text, 1 binary. */
    public static byte[] encode(String text, int oid, int format) {
        if (text == null) {
            return null;
        }
        if (format == 0) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        int element = elementOf(oid);
        if (element != 0) {
            return encodeArray(text, element);
        }
        return encodeScalar(text, oid);
    }

    /** Whether values of {@code oid} can be sent in binary. */
    public static boolean binarySupported(int oid) {
        int element = elementOf(oid);
        return binaryScalar(element != 0 ? element : oid);
    }

    private static boolean binaryScalar(int oid) {
        return switch (oid) {
            case BOOL,
                    INT2,
                    INT4,
                    INT8,
                    OID,
                    FLOAT4,
                    FLOAT8,
                    TEXT,
                    VARCHAR,
                    BPCHAR,
                    NAME,
                    UNKNOWN,
                    NUMERIC,
                    DATE,
                    TIMESTAMP -> true;
            default -> false;
        };
    }

    private static byte[] encodeScalar(String text, int oid) {
        try {
            return switch (oid) {
                case BOOL -> new byte[] {(byte) (text.equals("t") || text.equalsIgnoreCase("true") ? 1 : 0)};
                case INT2 ->
                    ByteBuffer.allocate(2).putShort(Short.parseShort(text)).array();
                case INT4, OID ->
                    ByteBuffer.allocate(4).putInt((int) Long.parseLong(text)).array();
                case INT8 ->
                    ByteBuffer.allocate(8).putLong(Long.parseLong(text)).array();
                case FLOAT4 ->
                    ByteBuffer.allocate(4).putFloat(Float.parseFloat(text)).array();
                case FLOAT8 ->
                    ByteBuffer.allocate(8).putDouble(Double.parseDouble(text)).array();
                case TEXT, VARCHAR, BPCHAR, NAME, UNKNOWN -> text.getBytes(StandardCharsets.UTF_8);
                case NUMERIC -> encodeNumeric(text);
                case DATE ->
                    ByteBuffer.allocate(4)
                            .putInt((int) ChronoUnit.DAYS.between(POSTGRES_EPOCH_DATE, LocalDate.parse(text)))
                            .array();
                case TIMESTAMP ->
                    ByteBuffer.allocate(8).putLong(timestampMicros(text)).array();
                default ->
                    throw new ValueException(
                            "0A000", "the front end cannot send values of type " + oid + " in binary format");
            };
        } catch (NumberFormatException | java.time.DateTimeException e) {
            throw new ValueException("22P02", "cannot encode '" + text + "' of type " + oid + ": " + e.getMessage());
        }
    }

    private static long timestampMicros(String text) {
        if (text.equals("infinity")) {
            return Long.MAX_VALUE;
        }
        if (text.equals("-infinity")) {
            return Long.MIN_VALUE;
        }
        return ChronoUnit.MICROS.between(POSTGRES_EPOCH, parseTimestamp(text));
    }

    /** A timestamp as PostgreSQL or a driver writes it; an offset after it (pgjdbc sends one) is ignored, as by PostgreSQL. */
    public static LocalDateTime parseTimestamp(String text) {
        String trimmed = text.trim();
        int offset = offsetStart(trimmed);
        return LocalDateTime.parse(
                offset < 0 ? trimmed : trimmed.substring(0, offset).trim(), TIMESTAMP_TEXT);
    }

    private static int offsetStart(String text) {
        int time = text.indexOf(':');
        if (time < 0) {
            return -1;
        }
        for (int i = time; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '+' || c == '-' || c == 'Z' || c == 'z') {
                return i;
            }
        }
        return -1;
    }

    /** A timestamp in PostgreSQL's output format (ISO, microseconds only when not zero). */
    public static String formatTimestamp(LocalDateTime timestamp) {
        return TIMESTAMP_OUT.format(timestamp);
    }

    /** PostgreSQL's binary numeric: base-10000 digits, a weight, a sign and the display scale. */
    static byte[] encodeNumeric(String text) {
        if (text.equals("NaN")) {
            return ByteBuffer.allocate(8)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putShort(NUMERIC_NAN)
                    .putShort((short) 0)
                    .array();
        }
        BigDecimal value = new BigDecimal(text);
        int scale = Math.max(value.scale(), 0);
        String plain = value.abs().setScale(scale).toPlainString();
        int point = plain.indexOf('.');
        String integer = point < 0 ? plain : plain.substring(0, point);
        String fraction = point < 0 ? "" : plain.substring(point + 1);
        integer = "0".repeat((4 - integer.length() % 4) % 4) + integer;
        fraction = fraction + "0".repeat((4 - fraction.length() % 4) % 4);
        List<Short> digits = new ArrayList<>();
        for (int i = 0; i < integer.length(); i += 4) {
            digits.add(Short.parseShort(integer.substring(i, i + 4)));
        }
        for (int i = 0; i < fraction.length(); i += 4) {
            digits.add(Short.parseShort(fraction.substring(i, i + 4)));
        }
        int weight = integer.length() / 4 - 1;
        int first = 0;
        while (first < digits.size() && digits.get(first) == 0) {
            first++;
            weight--;
        }
        int last = digits.size();
        while (last > first && digits.get(last - 1) == 0) {
            last--;
        }
        if (first == last) {
            weight = 0;
        }
        ByteBuffer out = ByteBuffer.allocate(8 + 2 * (last - first));
        out.putShort((short) (last - first)).putShort((short) weight);
        out.putShort(value.signum() < 0 ? NUMERIC_NEGATIVE : NUMERIC_POSITIVE).putShort((short) scale);
        for (int i = first; i < last; i++) {
            out.putShort(digits.get(i));
        }
        return out.array();
    }

    static BigDecimal decodeNumeric(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int count = in.getShort();
        int weight = in.getShort();
        short sign = in.getShort();
        int scale = in.getShort();
        if (sign == NUMERIC_NAN) {
            throw new ValueException("22P02", "NaN is not a value a procedure's numeric argument can take here");
        }
        if (count < 0 || bytes.length != 8 + 2 * count) {
            throw new ValueException("22P03", "invalid binary numeric of " + bytes.length + " bytes");
        }
        BigInteger unscaled = BigInteger.ZERO;
        for (int i = 0; i < count; i++) {
            unscaled = unscaled.multiply(TEN_THOUSAND).add(BigInteger.valueOf(in.getShort()));
        }
        BigDecimal value = new BigDecimal(unscaled).scaleByPowerOfTen(4 * (weight - count + 1));
        value = value.setScale(scale, java.math.RoundingMode.UNNECESSARY);
        return sign == NUMERIC_NEGATIVE ? value.negate() : value;
    }

    private static byte[] encodeArray(String text, int element) {
        List<String> elements = ArrayLiteral.parse(text);
        List<byte[]> encoded = new ArrayList<>(elements.size());
        boolean hasNull = false;
        int size = 20;
        for (String value : elements) {
            byte[] bytes = value == null ? null : encodeScalar(value, element);
            hasNull |= bytes == null;
            size += 4 + (bytes == null ? 0 : bytes.length);
            encoded.add(bytes);
        }
        ByteBuffer out = ByteBuffer.allocate(elements.isEmpty() ? 12 : size);
        out.putInt(elements.isEmpty() ? 0 : 1).putInt(hasNull ? 1 : 0).putInt(element);
        if (!elements.isEmpty()) {
            out.putInt(elements.size()).putInt(1);
            for (byte[] bytes : encoded) {
                if (bytes == null) {
                    out.putInt(-1);
                } else {
                    out.putInt(bytes.length).put(bytes);
                }
            }
        }
        return out.array();
    }

    /**
     * A parameter sent in binary, as the text PostgreSQL would print for it ({@code oid} is the type the client
     * declared): the front end then reads every argument from text, whatever its format.
     */
    public static String binaryToText(byte[] bytes, int oid) {
        int element = elementOf(oid);
        if (element != 0) {
            return decodeArray(bytes, element);
        }
        return scalarToText(bytes, oid);
    }

    private static String scalarToText(byte[] bytes, int oid) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            return switch (oid) {
                case BOOL -> requireLength(bytes, 1, oid) && bytes[0] != 0 ? "t" : "f";
                case INT2 -> requireLength(bytes, 2, oid) ? Short.toString(in.getShort()) : null;
                case INT4, OID -> requireLength(bytes, 4, oid) ? Integer.toString(in.getInt()) : null;
                case INT8 -> requireLength(bytes, 8, oid) ? Long.toString(in.getLong()) : null;
                case FLOAT4 -> requireLength(bytes, 4, oid) ? Float.toString(in.getFloat()) : null;
                case FLOAT8 -> requireLength(bytes, 8, oid) ? Double.toString(in.getDouble()) : null;
                case TEXT, VARCHAR, BPCHAR, NAME, UNKNOWN, 0 -> new String(bytes, StandardCharsets.UTF_8);
                case NUMERIC -> decodeNumeric(bytes).toPlainString();
                case DATE ->
                    requireLength(bytes, 4, oid)
                            ? POSTGRES_EPOCH_DATE.plusDays(in.getInt()).toString()
                            : null;
                case TIMESTAMP, TIMESTAMPTZ ->
                    requireLength(bytes, 8, oid)
                            ? formatTimestamp(POSTGRES_EPOCH
                                    .plus(in.getLong(), ChronoUnit.MICROS)
                                    .atOffset(ZoneOffset.UTC)
                                    .toLocalDateTime())
                            : null;
                default ->
                    throw new ValueException(
                            "0A000", "the front end cannot read parameters of type " + oid + " in binary format");
            };
        } catch (java.nio.BufferUnderflowException | ArithmeticException e) {
            throw new ValueException("22P03", "invalid binary value of type " + oid);
        }
    }

    private static boolean requireLength(byte[] bytes, int length, int oid) {
        if (bytes.length != length) {
            throw new ValueException(
                    "22P03",
                    "invalid binary value of type " + oid + ": " + bytes.length + " bytes, expected " + length);
        }
        return true;
    }

    private static String decodeArray(byte[] bytes, int declaredElement) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            int dimensions = in.getInt();
            in.getInt(); // has-null flag
            int element = in.getInt();
            if (dimensions == 0) {
                return "{}";
            }
            if (dimensions != 1) {
                throw new ValueException("0A000", "only one-dimensional arrays are supported, got " + dimensions);
            }
            int length = in.getInt();
            in.getInt(); // lower bound
            List<String> values = new ArrayList<>(Math.min(length, 4096));
            for (int i = 0; i < length; i++) {
                int size = in.getInt();
                if (size == -1) {
                    values.add(null);
                } else {
                    byte[] value = new byte[size];
                    in.get(value);
                    values.add(scalarToText(value, element != 0 ? element : declaredElement));
                }
            }
            return ArrayLiteral.format(values);
        } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
            throw new ValueException("22P03", "invalid binary array");
        }
    }
}
