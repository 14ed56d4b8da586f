package org.gargamel.frontend.protocol;

import java.util.ArrayList;
import java.util.List;

/** PostgreSQL's text form of a one-dimensional array, {@code {1,NULL,"a b"}}: read and written. */
public final class ArrayLiteral {
    private ArrayLiteral() {}

    /** The elements of {@code text} (null for an unquoted NULL); a malformed literal is SQLSTATE 22P02. */
    public static List<String> parse(String text) {
        String trimmed = text.trim();
        if (trimmed.length() < 2 || trimmed.charAt(0) != '{' || trimmed.charAt(trimmed.length() - 1) != '}') {
            throw malformed(text, "an array must begin with \"{\" and end with \"}\"");
        }
        List<String> values = new ArrayList<>();
        String body = trimmed.substring(1, trimmed.length() - 1);
        if (body.isBlank()) {
            return values;
        }
        int i = 0;
        while (true) {
            while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
                i++;
            }
            StringBuilder value = new StringBuilder();
            boolean quoted = false;
            if (i < body.length() && body.charAt(i) == '"') {
                quoted = true;
                i++;
                while (true) {
                    if (i >= body.length()) {
                        throw malformed(text, "unterminated quoted element");
                    }
                    char c = body.charAt(i++);
                    if (c == '\\' && i < body.length()) {
                        value.append(body.charAt(i++));
                    } else if (c == '"') {
                        break;
                    } else {
                        value.append(c);
                    }
                }
                while (i < body.length() && Character.isWhitespace(body.charAt(i))) {
                    i++;
                }
            } else {
                while (i < body.length() && body.charAt(i) != ',') {
                    char c = body.charAt(i++);
                    if (c == '{' || c == '"') {
                        throw malformed(text, "only one-dimensional arrays of scalars are supported");
                    }
                    if (c == '\\' && i < body.length()) {
                        c = body.charAt(i++);
                    }
                    value.append(c);
                }
            }
            String element = quoted ? value.toString() : value.toString().trim();
            values.add(!quoted && element.equalsIgnoreCase("NULL") ? null : element);
            if (i >= body.length()) {
                return values;
            }
            if (body.charAt(i) != ',') {
                throw malformed(text, "junk after an element");
            }
            i++;
        }
    }

    /** The text form of {@code values}, quoting what needs it. */
    public static String format(List<String> values) {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                text.append(',');
            }
            String value = values.get(i);
            if (value == null) {
                text.append("NULL");
            } else if (needsQuotes(value)) {
                text.append('"')
                        .append(value.replace("\\", "\\\\").replace("\"", "\\\""))
                        .append('"');
            } else {
                text.append(value);
            }
        }
        return text.append('}').toString();
    }

    private static boolean needsQuotes(String value) {
        if (value.isEmpty() || value.equalsIgnoreCase("NULL")) {
            return true;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == ',' || c == '{' || c == '}' || c == '"' || c == '\\' || Character.isWhitespace(c)) {
                return true;
            }
        }
        return false;
    }

    private static PgTypes.ValueException malformed(String text, String why) {
        return new PgTypes.ValueException("22P02", "malformed array literal: \"" + text + "\" (" + why + ")");
    }
}
