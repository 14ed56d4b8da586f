package org.gargamel.common.call;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * An ad-hoc read-only query (docs/protocol.md, Ad-hoc reads): SQL text a client sent that is not a call of a procedure
 * of the rules, with its {@code $n} parameters. It travels as a {@link ProcedureCall} of its own kind
 * ({@link ProcedureCall#adHoc}), so the library's sessions, the scheduler's placement and failover and the node's
 * workers treat it as a read-only call; the node runs it in one {@code REPEATABLE READ READ ONLY} transaction.
 *
 * @param kind           run it and return its rows, or only describe it (parameter types, columns) without running it
 * @param sql            one statement, as the client wrote it ({@code $n} for parameters)
 * @param parameterTypes the pg_type OID of each parameter as the client declared it (0: let PostgreSQL infer it); as
 *                       many as {@code parameters} when running, any number up to the statement's when describing
 * @param parameters     each parameter's value in PostgreSQL's text format (null: SQL NULL)
 */
public record AdHocQuery(Kind kind, String sql, List<Integer> parameterTypes, List<String> parameters) {
    /** The most parameters a statement can have in PostgreSQL's protocol. */
    public static final int MAX_PARAMETERS = 65_535;

    /** Each kind travels as its code, which is part of the wire format: never renumber. */
    public enum Kind {
        RUN(0),
        DESCRIBE(1);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The kind whose wire code is {@code code}, or null. */
        public static Kind ofCode(int code) {
            for (Kind kind : values()) {
                if (kind.code == code) {
                    return kind;
                }
            }
            return null;
        }
    }

    public AdHocQuery {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sql, "sql");
        if (sql.isBlank()) {
            throw new IllegalArgumentException("an ad-hoc query without SQL");
        }
        if (sql.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("an ad-hoc query with a NUL character");
        }
        parameterTypes = List.copyOf(parameterTypes);
        if (parameterTypes.size() > MAX_PARAMETERS || parameters.size() > MAX_PARAMETERS) {
            throw new IllegalArgumentException("an ad-hoc query with more than " + MAX_PARAMETERS + " parameters");
        }
        if (kind == Kind.RUN && parameterTypes.size() != parameters.size()) {
            throw new IllegalArgumentException("an ad-hoc query with " + parameters.size() + " parameter value(s) and "
                    + parameterTypes.size() + " parameter type(s)");
        }
        if (kind == Kind.DESCRIBE && !parameters.isEmpty()) {
            throw new IllegalArgumentException("an ad-hoc query to describe carries no parameter values");
        }
        for (int type : parameterTypes) {
            if (type < 0) {
                throw new IllegalArgumentException("parameter type " + type + " is not a pg_type OID");
            }
        }
        parameters = Collections.unmodifiableList(new ArrayList<>(parameters)); // values may be null
    }

    /** A query to run with its parameters. */
    public static AdHocQuery run(String sql, List<Integer> parameterTypes, List<String> parameters) {
        return new AdHocQuery(Kind.RUN, sql, parameterTypes, parameters);
    }

    /** A query to describe (not run), with the parameter types the client declared. */
    public static AdHocQuery describe(String sql, List<Integer> parameterTypes) {
        return new AdHocQuery(Kind.DESCRIBE, sql, parameterTypes, List.of());
    }
}
