package org.gargamel.frontend.sql;

import java.util.List;

/** One statement a client sent, as the front end understands it (docs/frontend.md, What SQL it takes). */
public sealed interface SqlStatement {
    /** Nothing but blanks and comments: EmptyQueryResponse. */
    record Empty() implements SqlStatement {}

    /** BEGIN / START TRANSACTION. */
    record Begin() implements SqlStatement {}

    /** COMMIT / END. */
    record Commit() implements SqlStatement {}

    /** ROLLBACK / ABORT. */
    record Rollback() implements SqlStatement {}

    /** SET name TO value (value null: DEFAULT); kept by the session, not sent anywhere. */
    record Set(String name, String value) implements SqlStatement {}

    /** SHOW name, or SHOW ALL (name "all"). */
    record Show(String name) implements SqlStatement {}

    /** RESET name, or RESET ALL (name "all"). */
    record Reset(String name) implements SqlStatement {}

    /** DISCARD ALL and friends: the session's settings back to their defaults. */
    record Discard(String what) implements SqlStatement {}

    /** SELECT version(). */
    record Version(String column) implements SqlStatement {}

    /**
     * A call of a procedure of the rules. {@code column} is the alias of {@code SELECT p(...) AS alias}, else null.
     */
    record Call(Form form, String procedure, List<Argument> arguments, String column) implements SqlStatement {
        public Call {
            arguments = List.copyOf(arguments);
        }
    }

    /**
     * An ad-hoc read (SELECT, WITH, VALUES, TABLE that is not a call of a procedure of the rules), run on a replica in
     * a read-only transaction; {@code sql} is the statement's text as the client wrote it.
     */
    record AdHocRead(String sql) implements SqlStatement {}

    /** A statement the front end does not run: the SQLSTATE and a message that says why and what to do instead. */
    record Refused(String sqlState, String message) implements SqlStatement {}

    /** How the call was written, which decides the shape of its result and its command tag. */
    enum Form {
        /** {@code SELECT p(...)}: one column named after the procedure (a row of several columns is one record). */
        SELECT_VALUE,
        /** {@code SELECT * FROM p(...)}: the procedure's columns. */
        SELECT_FROM,
        /** {@code CALL p(...)}: the procedure's columns, command tag CALL. */
        CALL
    }

    /** An argument of a call, as written. */
    sealed interface Argument {}

    /** A literal's text (a number as written, a string's content), or null for NULL. */
    record Literal(String text) implements Argument {}

    /** {@code ARRAY[...]}. */
    record ArrayOf(List<Argument> elements) implements Argument {
        public ArrayOf {
            elements = List.copyOf(elements);
        }
    }

    /** {@code $n}, 1-based. */
    record Parameter(int number) implements Argument {}
}
