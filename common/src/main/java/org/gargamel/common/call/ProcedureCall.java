package org.gargamel.common.call;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One non-interactive transaction: a stored procedure and its typed arguments (DESIGN.md §2).
 *
 * <p>Arguments are {@code null}, {@link Integer}, {@link Long}, {@link BigDecimal}, {@link String},
 * {@link LocalDateTime}, or a {@link List} of those scalars (a SQL array). Everything non-deterministic
 * (timestamps, random choices) is decided by the caller, so replaying a call gives the same effect.
 */
public final class ProcedureCall {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    /** PostgreSQL's numeric: at most 131072 digits before the decimal point and 16383 after. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;

    private static final int NUMERIC_MAX_SCALE = 16_383;

    /**
     * What {@link #procedure()} says for an ad-hoc query: a name no procedure of the rules can have, so a rules lookup
     * never matches it; it appears in logs and statistics.
     */
    public static final String AD_HOC = "(ad-hoc query)";

    /** PostgreSQL's NAMEDATALEN - 1: a longer role name would be truncated by the server into another role's. */
    public static final int MAX_ROLE_BYTES = 63;

    private final String procedure;
    private final List<Object> arguments;
    /** Non-null for an ad-hoc read-only query instead of a procedure call. */
    private final AdHocQuery adHoc;
    /** The database role the call runs as (docs/frontend.md, Security); null: the node's own login. */
    private final String role;

    public ProcedureCall(String procedure, List<?> arguments) {
        this.adHoc = null;
        this.role = null;
        this.procedure = Objects.requireNonNull(procedure, "procedure");
        List<Object> copy = new ArrayList<>(arguments.size());
        for (int i = 0; i < arguments.size(); i++) {
            Object argument = arguments.get(i);
            if (argument instanceof List<?> list) {
                for (Object element : list) {
                    requireScalar(element, i);
                }
                copy.add(Collections.unmodifiableList(new ArrayList<>(list)));
            } else {
                requireScalar(argument, i);
                copy.add(argument);
            }
        }
        this.arguments = Collections.unmodifiableList(copy);
    }

    private ProcedureCall(AdHocQuery query) {
        this.procedure = AD_HOC;
        this.arguments = List.of();
        this.adHoc = Objects.requireNonNull(query, "query");
        this.role = null;
    }

    private ProcedureCall(ProcedureCall call, String role) {
        this.procedure = call.procedure;
        this.arguments = call.arguments;
        this.adHoc = call.adHoc;
        this.role = checkRole(role);
    }

    /**
     * The same call run with the privileges of database role {@code role} (a front end's user, mapped; docs/frontend.md,
     * Security): the node runs a procedure after {@code SET LOCAL ROLE}, and an ad-hoc query on a connection logged in
     * as the role, so PostgreSQL's own privileges refuse what the role may not do.
     */
    public ProcedureCall asRole(String role) {
        return new ProcedureCall(this, role);
    }

    /** The database role this call runs as, or null: the node's own login (a library client holding the cluster's secret). */
    public String role() {
        return role;
    }

    /**
     * {@code role} if it can name a PostgreSQL role exactly: not empty, no NUL, at most {@link #MAX_ROLE_BYTES} bytes in
     * UTF-8 (PostgreSQL would truncate a longer one, maybe into the name of another role).
     */
    public static String checkRole(String role) {
        Objects.requireNonNull(role, "role");
        if (role.isEmpty()) {
            throw new IllegalArgumentException("an empty role name");
        }
        if (role.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a role name with a NUL character");
        }
        int bytes = role.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_ROLE_BYTES) {
            throw new IllegalArgumentException("role name of " + bytes + " bytes: PostgreSQL's are at most "
                    + MAX_ROLE_BYTES + " (it would truncate this one)");
        }
        return role;
    }

    /** An ad-hoc read-only query, sent and placed as a read-only call (docs/protocol.md, Ad-hoc reads). */
    public static ProcedureCall adHoc(AdHocQuery query) {
        return new ProcedureCall(query);
    }

    /** The ad-hoc query this call carries, or null for a call of a procedure. */
    public AdHocQuery adHoc() {
        return adHoc;
    }

    public static ProcedureCall of(String procedure, Object... arguments) {
        return new ProcedureCall(procedure, java.util.Arrays.asList(arguments));
    }

    private void requireScalar(Object value, int index) {
        if (value == null
                || value instanceof Integer
                || value instanceof Long
                || value instanceof BigDecimal
                || value instanceof String
                || value instanceof LocalDateTime) {
            return;
        }
        throw new IllegalArgumentException("argument " + (index + 1) + " of " + procedure + " has unsupported type "
                + value.getClass().getName()
                + " (expected integer, bigint, numeric, text, timestamp or an array of them)");
    }

    public String procedure() {
        return procedure;
    }

    public List<Object> arguments() {
        return arguments;
    }

    /** The call as psql would accept it, e.g. {@code payment(1, 2, 1, 2, NULL, 'BARBARABLE', 10.00, '2026-01-01 10:00:00')}. */
    public String toSql() {
        if (adHoc != null) {
            return adHoc.sql();
        }
        StringBuilder sql = new StringBuilder(procedure).append('(');
        for (int i = 0; i < arguments.size(); i++) {
            if (i > 0) {
                sql.append(", ");
            }
            appendValue(sql, arguments.get(i));
        }
        return sql.append(')').toString();
    }

    private static void appendValue(StringBuilder sql, Object value) {
        if (value == null) {
            sql.append("NULL");
        } else if (value instanceof List<?> list) {
            sql.append("ARRAY[");
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    sql.append(',');
                }
                appendValue(sql, list.get(i));
            }
            sql.append(']');
        } else if (value instanceof String text) {
            sql.append('\'').append(text.replace("'", "''")).append('\'');
        } else if (value instanceof LocalDateTime timestamp) {
            sql.append('\'').append(TIMESTAMP.format(timestamp));
            int nanoOfSecond = timestamp.get(ChronoField.NANO_OF_SECOND); // the fraction TIMESTAMP leaves out
            if (nanoOfSecond != 0) {
                sql.append(String.format(".%06d", nanoOfSecond / 1000));
            }
            sql.append('\'');
        } else if (value instanceof BigDecimal decimal) {
            // Plain digits for every value a PostgreSQL numeric holds; beyond (any client can send a scale of 2^31-1),
            // the exponent form, which PostgreSQL refuses clearly, rather than billions of zeros.
            boolean plain = decimal.scale() <= NUMERIC_MAX_SCALE && decimal.scale() >= -NUMERIC_MAX_INTEGER_DIGITS;
            sql.append(plain ? decimal.toPlainString() : decimal.toString());
        } else {
            sql.append(value);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ProcedureCall call
                && procedure.equals(call.procedure)
                && arguments.equals(call.arguments)
                && Objects.equals(adHoc, call.adHoc)
                && Objects.equals(role, call.role);
    }

    @Override
    public int hashCode() {
        return ((procedure.hashCode() * 31 + arguments.hashCode()) * 31 + Objects.hashCode(adHoc)) * 31
                + Objects.hashCode(role);
    }

    @Override
    public String toString() {
        String call = adHoc != null ? AD_HOC + " " + adHoc.kind() : toSql();
        return role == null ? call : call + " as " + role;
    }
}
