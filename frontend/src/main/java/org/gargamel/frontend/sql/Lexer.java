package org.gargamel.frontend.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts SQL into tokens, and a query string into its statements. Knows PostgreSQL's quoting (single quotes with
 * doubled quotes, E'' strings, double-quoted identifiers, dollar quoting) and comments (line and nested block), so a
 * semicolon inside any of them does not end a statement.
 */
final class Lexer {
    enum Kind {
        WORD,
        QUOTED_IDENTIFIER,
        STRING,
        NUMBER,
        PARAMETER,
        SYMBOL
    }

    record Token(Kind kind, String text, int position) {
        boolean is(String symbolOrWord) {
            return (kind == Kind.SYMBOL || kind == Kind.WORD) && text.equalsIgnoreCase(symbolOrWord);
        }
    }

    private Lexer() {}

    /** The statements of a query string, without their semicolons; blank ones are kept (they are empty queries). */
    static List<String> split(String sql) {
        List<String> statements = new ArrayList<>();
        int start = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == ';') {
                statements.add(sql.substring(start, i));
                start = ++i;
            } else {
                i = skipQuotedOrComment(sql, i);
            }
        }
        String last = sql.substring(start);
        if (statements.isEmpty() || !isBlank(last)) {
            statements.add(last);
        }
        return statements;
    }

    /** Whether {@code sql} holds nothing but blanks and comments. */
    static boolean isBlank(String sql) {
        return tokens(sql).isEmpty();
    }

    /** Past the quoted text or comment at {@code i}, or one character on. */
    private static int skipQuotedOrComment(String sql, int i) {
        char c = sql.charAt(i);
        if (c == '\'') {
            int end = endOfString(sql, i, i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e'));
            return end < 0 ? sql.length() : end;
        }
        if (c == '"') {
            int end = sql.indexOf('"', i + 1);
            return end < 0 ? sql.length() : end + 1;
        }
        if (c == '-' && sql.startsWith("--", i)) {
            int end = sql.indexOf('\n', i);
            return end < 0 ? sql.length() : end + 1;
        }
        if (c == '/' && sql.startsWith("/*", i)) {
            return endOfBlockComment(sql, i);
        }
        if (c == '$') {
            String tag = dollarTag(sql, i);
            if (tag != null) {
                int end = sql.indexOf(tag, i + tag.length());
                return end < 0 ? sql.length() : end + tag.length();
            }
        }
        return i + 1;
    }

    private static int endOfString(String sql, int start, boolean backslashEscapes) {
        int i = start + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == '\'') {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == '\'') {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return -1; // unterminated
    }

    private static int endOfBlockComment(String sql, int start) {
        int depth = 0;
        int i = start;
        while (i < sql.length()) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    /** {@code $tag$} at {@code i}, or null if a dollar there opens no dollar quote ({@code $1} is a parameter). */
    private static String dollarTag(String sql, int i) {
        int j = i + 1;
        while (j < sql.length() && (Character.isLetter(sql.charAt(j)) || sql.charAt(j) == '_')) {
            j++;
        }
        return j < sql.length() && sql.charAt(j) == '$' ? sql.substring(i, j + 1) : null;
    }

    /** The tokens of one statement; a string's token holds its content, unescaped. */
    static List<Token> tokens(String sql) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if ((c == '-' && sql.startsWith("--", i)) || (c == '/' && sql.startsWith("/*", i))) {
                i = skipQuotedOrComment(sql, i);
            } else if (c == '\'' || ((c == 'E' || c == 'e') && i + 1 < sql.length() && sql.charAt(i + 1) == '\'')) {
                boolean escapes = c != '\'';
                int start = escapes ? i + 1 : i;
                int end = endOfString(sql, start, escapes);
                if (end < 0) {
                    throw new SqlSyntaxException("unterminated quoted string at or near position " + (i + 1));
                }
                tokens.add(new Token(Kind.STRING, unquote(sql.substring(start + 1, end - 1), escapes), i));
                i = end;
            } else if (c == '"') {
                int end = sql.indexOf('"', i + 1);
                if (end < 0) {
                    throw new SqlSyntaxException("unterminated quoted identifier at or near position " + (i + 1));
                }
                tokens.add(new Token(Kind.QUOTED_IDENTIFIER, sql.substring(i + 1, end), i));
                i = end + 1;
            } else if (c == '$' && i + 1 < sql.length() && Character.isDigit(sql.charAt(i + 1))) {
                int j = i + 1;
                while (j < sql.length() && Character.isDigit(sql.charAt(j))) {
                    j++;
                }
                tokens.add(new Token(Kind.PARAMETER, sql.substring(i + 1, j), i));
                i = j;
            } else if (c == '$' && dollarTag(sql, i) != null) {
                String tag = dollarTag(sql, i);
                int end = sql.indexOf(tag, i + tag.length());
                if (end < 0) {
                    throw new SqlSyntaxException("unterminated dollar-quoted string at or near position " + (i + 1));
                }
                tokens.add(new Token(Kind.STRING, sql.substring(i + tag.length(), end), i));
                i = end + tag.length();
            } else if (Character.isDigit(c)
                    || (c == '.' && i + 1 < sql.length() && Character.isDigit(sql.charAt(i + 1)))) {
                int j = i;
                while (j < sql.length()
                        && (Character.isDigit(sql.charAt(j))
                                || sql.charAt(j) == '.'
                                || sql.charAt(j) == 'e'
                                || sql.charAt(j) == 'E'
                                || ((sql.charAt(j) == '-' || sql.charAt(j) == '+')
                                        && (sql.charAt(j - 1) == 'e' || sql.charAt(j - 1) == 'E')))) {
                    j++;
                }
                tokens.add(new Token(Kind.NUMBER, sql.substring(i, j), i));
                i = j;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i;
                while (j < sql.length()
                        && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_' || sql.charAt(j) == '$')) {
                    j++;
                }
                tokens.add(new Token(Kind.WORD, sql.substring(i, j), i));
                i = j;
            } else if (c == ':' && sql.startsWith("::", i)) {
                tokens.add(new Token(Kind.SYMBOL, "::", i));
                i += 2;
            } else {
                tokens.add(new Token(Kind.SYMBOL, String.valueOf(c), i));
                i++;
            }
        }
        return tokens;
    }

    private static String unquote(String body, boolean backslashEscapes) {
        StringBuilder text = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\'' && i + 1 < body.length() && body.charAt(i + 1) == '\'') {
                text.append('\'');
                i++;
            } else if (backslashEscapes && c == '\\' && i + 1 < body.length()) {
                char next = body.charAt(++i);
                text.append(
                        switch (next) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            case 'b' -> '\b';
                            case 'f' -> '\f';
                            default -> next;
                        });
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }
}
