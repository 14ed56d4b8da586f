package org.gargamel.classifier;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Locale;

/** The argument types a rule may declare; arrays are element-wise of the scalar types. */
public enum ParameterType {
    INTEGER("integer", "int4", false),
    BIGINT("bigint", "int8", false),
    NUMERIC("numeric", "numeric", false),
    TEXT("text", "text", false),
    VARCHAR("varchar", "varchar", false),
    TIMESTAMP("timestamp", "timestamp", false),
    INTEGER_ARRAY("integer[]", "_int4", true),
    BIGINT_ARRAY("bigint[]", "_int8", true),
    NUMERIC_ARRAY("numeric[]", "_numeric", true),
    TEXT_ARRAY("text[]", "_text", true),
    TIMESTAMP_ARRAY("timestamp[]", "_timestamp", true);

    private final String sqlName;
    private final String catalogName;
    private final boolean array;

    ParameterType(String sqlName, String catalogName, boolean array) {
        this.sqlName = sqlName;
        this.catalogName = catalogName;
        this.array = array;
    }

    /** Accepts the PostgreSQL spellings: integer/int/int4, bigint/int8, text, varchar, numeric, timestamp, and T[]. */
    public static ParameterType parse(String text) {
        String normalized = text.trim().toLowerCase(Locale.ROOT).replace(" ", "");
        boolean isArray = normalized.endsWith("[]");
        String base = isArray ? normalized.substring(0, normalized.length() - 2) : normalized;
        String canonical = switch (base) {
            case "integer", "int", "int4" -> "integer";
            case "bigint", "int8" -> "bigint";
            case "numeric", "decimal" -> "numeric";
            case "text" -> "text";
            case "varchar", "charactervarying" -> isArray ? "text" : "varchar";
            case "timestamp", "timestampwithouttimezone" -> "timestamp";
            default -> null;
        };
        if (canonical != null) {
            String wanted = canonical + (isArray ? "[]" : "");
            for (ParameterType type : values()) {
                if (type.sqlName.equals(wanted)) {
                    return type;
                }
            }
        }
        throw new IllegalArgumentException("unknown parameter type '" + text
                + "' (expected integer, bigint, numeric, text, varchar, timestamp, or an array of one of them)");
    }

    public String sqlName() {
        return sqlName;
    }

    /** The type's name in pg_type, to match a procedure's signature in the catalogue. */
    public String catalogName() {
        return catalogName;
    }

    public boolean isArray() {
        return array;
    }

    public ParameterType elementType() {
        return switch (this) {
            case INTEGER_ARRAY -> INTEGER;
            case BIGINT_ARRAY -> BIGINT;
            case NUMERIC_ARRAY -> NUMERIC;
            case TEXT_ARRAY -> TEXT;
            case TIMESTAMP_ARRAY -> TIMESTAMP;
            default -> this;
        };
    }

    /** Whether {@code value} (as held by a ProcedureCall) is of this type; null is checked elsewhere. */
    public boolean accepts(Object value) {
        if (array) {
            if (!(value instanceof List<?> list)) {
                return false;
            }
            ParameterType element = elementType();
            for (int i = 0, n = list.size(); i < n; i++) { // a loop, not a stream: every call's path checks arrays
                Object item = list.get(i);
                if (item != null && !element.accepts(item)) {
                    return false;
                }
            }
            return true;
        }
        return switch (this) {
            case INTEGER -> value instanceof Integer;
            case BIGINT -> value instanceof Long || value instanceof Integer;
            case NUMERIC -> value instanceof BigDecimal || value instanceof Integer || value instanceof Long;
            case TEXT, VARCHAR -> value instanceof String;
            case TIMESTAMP -> value instanceof LocalDateTime;
            default -> false;
        };
    }
}
