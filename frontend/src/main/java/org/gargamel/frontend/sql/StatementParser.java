package org.gargamel.frontend.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads one statement into a {@link SqlStatement}: a call of a procedure of the rules, a session or transaction
 * command, {@code SELECT version()}, or a refusal that says why and what to do. It does not parse SQL in general:
 * anything that is not one of these forms is refused, never guessed at.
 */
public final class StatementParser {
    private static final Set<String> WRITES =
            Set.of("insert", "update", "delete", "merge", "truncate", "copy", "lock", "vacuum", "analyze", "cluster");
    private static final Set<String> DDL =
            Set.of("create", "alter", "drop", "grant", "revoke", "comment", "security", "reindex", "refresh", "import");
    private static final Set<String> READS = Set.of("select", "with", "values", "table");
    /**
     * Words that make a read statement not a read for the front end wherever they stand outside quotes: a WITH that
     * modifies data, SELECT INTO (which creates a table), SELECT ... FOR UPDATE. Conservative on purpose (a column
     * named "update" must be quoted); the replica's READ ONLY transaction is the real guard.
     */
    private static final Set<String> NOT_IN_A_READ = Set.of("insert", "update", "delete", "merge", "into", "truncate");

    private final Set<String> procedures;

    /** @param procedures the names of the procedures in the rules */
    public StatementParser(Set<String> procedures) {
        this.procedures = new TreeSet<>(procedures);
    }

    /** The statements of a simple query, each parsed (a blank one is {@link SqlStatement.Empty}). */
    public List<SqlStatement> parseAll(String sql) {
        List<SqlStatement> statements = new ArrayList<>();
        for (String text : Lexer.split(sql)) {
            statements.add(parse(text));
        }
        return statements;
    }

    /** Parses one statement (no semicolon inside); a syntax error is {@link SqlSyntaxException}. */
    public SqlStatement parse(String sql) {
        List<Lexer.Token> tokens = Lexer.tokens(sql);
        if (tokens.isEmpty()) {
            return new SqlStatement.Empty();
        }
        return new Reader(tokens, sql).statement();
    }

    /** The highest {@code $n} of a statement: the number of parameters a Parse gives it. */
    public static int parameterCount(String sql) {
        int count = 0;
        for (Lexer.Token token : Lexer.tokens(sql)) {
            if (token.kind() == Lexer.Kind.PARAMETER) {
                count = Math.max(count, Integer.parseInt(token.text()));
            }
        }
        return count;
    }

    /** Whether the query string holds more than one statement that is not blank. */
    public static boolean isMultiStatement(String sql) {
        return Lexer.split(sql).stream().filter(text -> !Lexer.isBlank(text)).count() > 1;
    }

    private final class Reader {
        private final List<Lexer.Token> tokens;
        private final String sql;
        private int position;

        Reader(List<Lexer.Token> tokens, String sql) {
            this.tokens = tokens;
            this.sql = sql;
        }

        SqlStatement statement() {
            Lexer.Token first = next();
            String keyword = first.kind() == Lexer.Kind.WORD ? first.text().toLowerCase(Locale.ROOT) : "";
            switch (keyword) {
                case "begin", "start" -> {
                    return new SqlStatement.Begin();
                }
                case "commit", "end" -> {
                    return new SqlStatement.Commit();
                }
                case "rollback", "abort" -> {
                    return new SqlStatement.Rollback();
                }
                case "set" -> {
                    return set();
                }
                case "show" -> {
                    return new SqlStatement.Show(settingName());
                }
                case "reset" -> {
                    return new SqlStatement.Reset(settingName());
                }
                case "discard" -> {
                    return new SqlStatement.Discard(rest().toUpperCase(Locale.ROOT));
                }
                case "call" -> {
                    return call(SqlStatement.Form.CALL, true);
                }
                case "select" -> {
                    return select();
                }
                default -> {
                    return refuse(keyword);
                }
            }
        }

        private SqlStatement select() {
            if (peekIs("*")) {
                next();
                if (!peekIs("from")) {
                    return adHocRead();
                }
                next();
                return call(SqlStatement.Form.SELECT_FROM, false);
            }
            if (peek() != null
                    && peek().kind() == Lexer.Kind.WORD
                    && peek().text().equalsIgnoreCase("version")
                    && position + 2 < tokens.size() + 1) {
                int mark = position;
                next();
                if (peekIs("(")) {
                    next();
                    if (peekIs(")")) {
                        next();
                        String column = alias();
                        if (peek() == null) {
                            return new SqlStatement.Version(column == null ? "version" : column);
                        }
                    }
                }
                position = mark;
            }
            return call(SqlStatement.Form.SELECT_VALUE, false);
        }

        /** {@code name(args) [[AS] alias]}, the whole rest of the statement; else a refusal. */
        private SqlStatement call(SqlStatement.Form form, boolean mustBeCall) {
            int mark = position;
            String name;
            try {
                name = qualifiedName();
            } catch (SqlSyntaxException e) {
                if (mustBeCall) {
                    throw e;
                }
                return adHocRead(); // SELECT t.* ...: PostgreSQL reads it
            }
            if (name == null || !peekIs("(")) {
                position = mark;
                return mustBeCall ? unknownProcedure(name) : adHocRead();
            }
            if (!procedures.contains(name)) {
                // SELECT f(...) of a function outside the rules is a read like any other: the replica runs it
                // read-only (a function that writes fails there) or says that it does not exist.
                return mustBeCall ? unknownProcedure(name) : adHocRead();
            }
            next(); // (
            List<SqlStatement.Argument> arguments = new ArrayList<>();
            if (!peekIs(")")) {
                while (true) {
                    arguments.add(argument());
                    if (peekIs(",")) {
                        next();
                        continue;
                    }
                    break;
                }
            }
            expect(")");
            String column = form == SqlStatement.Form.CALL ? null : alias();
            if (peek() != null) {
                return new SqlStatement.Refused(
                        "0A000",
                        "only a call alone is run: " + name + "(...) followed by '" + peek().text()
                                + "' is not (write SELECT " + name + "(...), SELECT * FROM " + name
                                + "(...) or CALL " + name + "(...))");
            }
            return new SqlStatement.Call(form, name, arguments, column);
        }

        private String alias() {
            if (peekIs("as")) {
                next();
                return identifier(next());
            }
            if (peek() != null
                    && (peek().kind() == Lexer.Kind.QUOTED_IDENTIFIER
                            || (peek().kind() == Lexer.Kind.WORD && position == tokens.size() - 1))) {
                return identifier(next());
            }
            return null;
        }

        private SqlStatement.Argument argument() {
            SqlStatement.Argument argument = primary();
            while (peekIs("::")) {
                next();
                skipTypeName();
            }
            return argument;
        }

        private SqlStatement.Argument primary() {
            Lexer.Token token = next();
            if (token == null) {
                throw new SqlSyntaxException("syntax error at end of input");
            }
            switch (token.kind()) {
                case STRING -> {
                    return new SqlStatement.Literal(token.text());
                }
                case NUMBER -> {
                    return new SqlStatement.Literal(token.text());
                }
                case PARAMETER -> {
                    int number = Integer.parseInt(token.text());
                    if (number < 1) {
                        throw new SqlSyntaxException("there is no parameter $" + number);
                    }
                    return new SqlStatement.Parameter(number);
                }
                case SYMBOL -> {
                    if (token.is("-") || token.is("+")) {
                        Lexer.Token number = next();
                        if (number == null || number.kind() != Lexer.Kind.NUMBER) {
                            throw syntaxError(number);
                        }
                        return new SqlStatement.Literal((token.is("-") ? "-" : "") + number.text());
                    }
                    if (token.is("(")) {
                        SqlStatement.Argument inner = argument();
                        expect(")");
                        return inner;
                    }
                    throw syntaxError(token);
                }
                case WORD -> {
                    String word = token.text().toLowerCase(Locale.ROOT);
                    if (word.equals("null")) {
                        return new SqlStatement.Literal(null);
                    }
                    if (word.equals("true") || word.equals("false")) {
                        return new SqlStatement.Literal(word);
                    }
                    if (word.equals("array") && peekIs("[")) {
                        next();
                        List<SqlStatement.Argument> elements = new ArrayList<>();
                        if (!peekIs("]")) {
                            while (true) {
                                elements.add(argument());
                                if (peekIs(",")) {
                                    next();
                                    continue;
                                }
                                break;
                            }
                        }
                        expect("]");
                        return new SqlStatement.ArrayOf(elements);
                    }
                    if (word.equals("cast") && peekIs("(")) {
                        next();
                        SqlStatement.Argument inner = argument();
                        expectWord("as");
                        skipTypeName();
                        expect(")");
                        return inner;
                    }
                    if (peek() != null && peek().kind() == Lexer.Kind.STRING) {
                        return new SqlStatement.Literal(next().text()); // a typed literal: timestamp '2026-...'
                    }
                    throw new SqlSyntaxException("an argument of a call must be a literal, NULL, ARRAY[...] or a $n "
                            + "parameter, not '" + token.text() + "' (expressions are not evaluated by the front end)");
                }
                default -> throw syntaxError(token);
            }
        }

        /** A type name after {@code ::} or {@code AS}: words, a modifier in parentheses, array brackets. */
        private void skipTypeName() {
            if (peek() == null || (peek().kind() != Lexer.Kind.WORD && peek().kind() != Lexer.Kind.QUOTED_IDENTIFIER)) {
                throw syntaxError(peek());
            }
            while (peek() != null
                    && ((peek().kind() == Lexer.Kind.WORD && !peekIs("as"))
                            || peek().kind() == Lexer.Kind.QUOTED_IDENTIFIER
                            || peekIs("."))) {
                next();
            }
            if (peekIs("(")) {
                while (next() != null && !tokens.get(position - 1).is(")")) {
                    // the modifier: numeric(10, 2), varchar(16)
                }
            }
            while (peekIs("[")) {
                next();
                expect("]");
            }
        }

        private String qualifiedName() {
            Lexer.Token token = peek();
            if (token == null || (token.kind() != Lexer.Kind.WORD && token.kind() != Lexer.Kind.QUOTED_IDENTIFIER)) {
                return null;
            }
            String name = identifier(next());
            if (peekIs(".")) {
                next();
                Lexer.Token second = next();
                if (second == null
                        || (second.kind() != Lexer.Kind.WORD && second.kind() != Lexer.Kind.QUOTED_IDENTIFIER)) {
                    throw syntaxError(second);
                }
                // The rules name procedures of the search path; public.p is p.
                return name.equals("public") ? identifier(second) : name + "." + identifier(second);
            }
            return name;
        }

        private SqlStatement set() {
            if (peekIs("session") || peekIs("local")) {
                next();
            }
            if (peekIs("time")) {
                next();
                expectWord("zone");
                return new SqlStatement.Set("timezone", value());
            }
            if (peekIs("names")) {
                next();
                return new SqlStatement.Set("client_encoding", value());
            }
            if (peekIs("transaction") || peekIs("characteristics") || peekIs("session")) {
                return new SqlStatement.Set("transaction", rest()); // kept as a no-op: a call is its own transaction
            }
            String name = settingName();
            if (peekIs("=") || peekIs("to")) {
                next();
            } else {
                throw syntaxError(peek());
            }
            return new SqlStatement.Set(name, value());
        }

        /** A setting's value: the rest of the statement, strings unquoted, lists joined with ", ". */
        private String value() {
            if (peekIs("default")) {
                next();
                return null;
            }
            List<String> parts = new ArrayList<>();
            StringBuilder part = new StringBuilder();
            while (peek() != null) {
                Lexer.Token token = next();
                if (token.is(",")) {
                    parts.add(part.toString());
                    part.setLength(0);
                } else {
                    part.append(part.length() > 0 && token.kind() != Lexer.Kind.SYMBOL ? " " : "")
                            .append(token.text());
                }
            }
            parts.add(part.toString());
            return String.join(", ", parts);
        }

        private String settingName() {
            Lexer.Token token = next();
            if (token == null) {
                throw new SqlSyntaxException("syntax error at end of input: a setting's name is missing");
            }
            StringBuilder name = new StringBuilder(identifier(token));
            while (peekIs(".")) {
                next();
                name.append('.').append(identifier(next()));
            }
            if (name.toString().equals("time") && peekIs("zone")) {
                next();
                return "timezone";
            }
            if (name.toString().equals("transaction") && peekIs("isolation")) {
                next();
                expectWord("level");
                return "transaction_isolation";
            }
            return name.toString();
        }

        private String rest() {
            StringBuilder text = new StringBuilder();
            while (peek() != null) {
                text.append(text.length() > 0 ? " " : "").append(next().text());
            }
            return text.toString();
        }

        private SqlStatement refuse(String keyword) {
            if (WRITES.contains(keyword)) {
                return new SqlStatement.Refused(
                        "0A000",
                        "Gargamel runs writes only as calls of the procedures in its rules, so that it can order "
                                + "conflicting ones before they run: " + keyword.toUpperCase(Locale.ROOT)
                                + " is refused. Write a procedure that does it, declare what it writes in the rules, "
                                + "and call it (SELECT proc(...)); the procedures are " + procedureList());
            }
            if (DDL.contains(keyword)) {
                return new SqlStatement.Refused(
                        "0A000",
                        "schema changes (" + keyword.toUpperCase(Locale.ROOT) + ") are not replicated through the front"
                                + " end: apply them to every replica while the cluster is stopped, with the rules that"
                                + " match (docs/frontend.md)");
            }
            if (READS.contains(keyword)) {
                return adHocRead();
            }
            if (keyword.equals("explain")
                    || keyword.equals("fetch")
                    || keyword.equals("prepare")
                    || keyword.equals("execute")
                    || keyword.equals("declare")) {
                return new SqlStatement.Refused(
                        "0A000",
                        "the front end does not run " + keyword.toUpperCase(Locale.ROOT) + ": its ad-hoc queries are "
                                + "SELECT, WITH, VALUES and TABLE, each in a read-only transaction of its own on a "
                                + "replica (prepare with the extended protocol's Parse instead)");
            }
            return new SqlStatement.Refused(
                    "0A000",
                    "the front end does not run "
                            + (keyword.isEmpty() ? "this statement" : keyword.toUpperCase(Locale.ROOT))
                            + ": it takes calls of the procedures in the rules (" + procedureList()
                            + "), session commands (SET, SHOW, RESET, BEGIN, COMMIT, ROLLBACK) and SELECT version()");
        }

        /** The whole statement as an ad-hoc read, unless a word in it says it may write. */
        private SqlStatement adHocRead() {
            for (Lexer.Token token : tokens) {
                if (token.kind() == Lexer.Kind.WORD
                        && NOT_IN_A_READ.contains(token.text().toLowerCase(Locale.ROOT))) {
                    return new SqlStatement.Refused(
                            "0A000",
                            "the front end runs ad-hoc queries only when they cannot write, and this one holds "
                                    + token.text().toUpperCase(Locale.ROOT) + " (position " + (token.position() + 1)
                                    + "): writes go through procedures the rules describe ("
                                    + procedureList() + "), called as SELECT proc(...); SELECT INTO and FOR UPDATE "
                                    + "are not run either");
                }
            }
            return new SqlStatement.AdHocRead(sql.strip());
        }

        private SqlStatement unknownProcedure(String name) {
            return new SqlStatement.Refused(
                    "42883",
                    (name == null ? "a call names no procedure" : "procedure " + name + " is not in the rules")
                            + ": the front end calls only the procedures in the rules (" + procedureList() + ")");
        }

        private String procedureList() {
            return procedures.size() <= 12
                    ? String.join(", ", procedures)
                    : String.join(", ", new ArrayList<>(procedures).subList(0, 12)) + ", ...";
        }

        private String identifier(Lexer.Token token) {
            if (token == null) {
                throw new SqlSyntaxException("syntax error at end of input");
            }
            if (token.kind() == Lexer.Kind.QUOTED_IDENTIFIER) {
                return token.text();
            }
            if (token.kind() != Lexer.Kind.WORD) {
                throw syntaxError(token);
            }
            return token.text().toLowerCase(Locale.ROOT);
        }

        private void expect(String symbol) {
            Lexer.Token token = next();
            if (token == null || !token.is(symbol)) {
                throw syntaxError(token);
            }
        }

        private void expectWord(String word) {
            expect(word);
        }

        private boolean peekIs(String symbolOrWord) {
            return peek() != null && peek().is(symbolOrWord);
        }

        private Lexer.Token peek() {
            return position < tokens.size() ? tokens.get(position) : null;
        }

        private Lexer.Token next() {
            return position < tokens.size() ? tokens.get(position++) : null;
        }

        private SqlSyntaxException syntaxError(Lexer.Token token) {
            return new SqlSyntaxException(
                    token == null
                            ? "syntax error at end of input"
                            : "syntax error at or near \"" + token.text() + "\" (position " + (token.position() + 1)
                                    + ")");
        }
    }
}
