package org.gargamel.classifier.parse;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ParameterType;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.common.call.ProcedureCall;

/**
 * Parses a call as psql would accept it — {@code payment(1, 2, 1, 2, NULL, 'BARBARABLE', 10.00,
 * '2026-01-01 10:00:00')}, {@code new_order(1, 3, 42, ARRAY[7,99], ARRAY[1,1], ARRAY[5,2], '...')} —
 * into a {@link ProcedureCall} typed by the procedure's declared parameters. Errors name the position,
 * the parameter and the value.
 */
public final class CallParser {
    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd[ ]['T']HH:mm[:ss]")
            .optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 6, true)
            .optionalEnd()
            .toFormatter();

    private final String text;
    private int position;

    private CallParser(String text) {
        this.text = text;
    }

    /** A literal as written: null, a number's text, a quoted string's content, or a list for ARRAY[...]. */
    private record Literal(Object value, boolean quoted, int position) {}

    public static ProcedureCall parse(String text, ClassifierRules rules) {
        return new CallParser(text).call(rules);
    }

    private ProcedureCall call(ClassifierRules rules) {
        skipSpaces();
        if (text.regionMatches(true, position, "SELECT ", 0, 7)) {
            position += 7;
            skipSpaces();
        }
        int nameStart = position;
        while (position < text.length()
                && (Character.isLetterOrDigit(text.charAt(position))
                        || text.charAt(position) == '_'
                        || text.charAt(position) == '.')) {
            position++;
        }
        String name = text.substring(nameStart, position);
        if (name.isEmpty()) {
            throw error("expected a procedure name");
        }
        ProcedureRule rule = rules.procedure(name);
        skipSpaces();
        expect('(');
        List<Literal> literals = new ArrayList<>();
        skipSpaces();
        if (peek() != ')') {
            while (true) {
                literals.add(literal());
                skipSpaces();
                if (peek() == ',') {
                    position++;
                    continue;
                }
                break;
            }
        }
        expect(')');
        skipSpaces();
        if (peek() == ';') {
            position++;
            skipSpaces();
        }
        if (position != text.length()) {
            throw error("unexpected text after the call");
        }
        if (literals.size() != rule.parameters().size()) {
            throw new RulesException(name + " takes " + rule.parameters().size() + " argument(s) "
                    + rule.parameters().stream().map(Parameter::name).toList() + ", got " + literals.size());
        }
        List<Object> arguments = new ArrayList<>();
        for (int i = 0; i < literals.size(); i++) {
            arguments.add(convert(name, rule.parameters().get(i), i, literals.get(i)));
        }
        ProcedureCall call = new ProcedureCall(name, arguments);
        rules.check(call);
        return call;
    }

    private Literal literal() {
        skipSpaces();
        int start = position;
        Literal literal;
        if (text.regionMatches(true, position, "NULL", 0, 4) && !identifierAt(position + 4)) {
            position += 4;
            literal = new Literal(null, false, start);
        } else if (text.regionMatches(true, position, "ARRAY", 0, 5)) {
            position += 5;
            skipSpaces();
            expect('[');
            List<Literal> elements = new ArrayList<>();
            skipSpaces();
            if (peek() != ']') {
                while (true) {
                    elements.add(literal());
                    skipSpaces();
                    if (peek() == ',') {
                        position++;
                        continue;
                    }
                    break;
                }
            }
            expect(']');
            literal = new Literal(elements, false, start);
        } else if (peek() == '\'') {
            literal = new Literal(quoted(), true, start);
        } else {
            while (position < text.length() && "+-.0123456789eE".indexOf(text.charAt(position)) >= 0) {
                position++;
            }
            if (position == start) {
                throw error("expected a value (a number, a quoted string, NULL or ARRAY[...])");
            }
            literal = new Literal(text.substring(start, position), false, start);
        }
        skipSpaces();
        if (text.startsWith("::", position)) {
            // An explicit cast, as psql allows: the declared parameter type decides anyway.
            position += 2;
            while (position < text.length()
                    && (Character.isLetterOrDigit(text.charAt(position)) || " []_".indexOf(text.charAt(position)) >= 0)
                    && text.charAt(position) != ',') {
                if (text.charAt(position) == ' '
                        && !text.startsWith("without", position + 1)
                        && !text.startsWith("time", position + 1)
                        && !text.startsWith("zone", position + 1)
                        && !text.startsWith("varying", position + 1)) {
                    break;
                }
                position++;
            }
        }
        return literal;
    }

    private String quoted() {
        StringBuilder value = new StringBuilder();
        position++;
        while (true) {
            if (position >= text.length()) {
                throw error("unterminated quoted string");
            }
            char c = text.charAt(position++);
            if (c == '\'') {
                if (peek() == '\'') {
                    value.append('\'');
                    position++;
                    continue;
                }
                return value.toString();
            }
            value.append(c);
        }
    }

    private Object convert(String procedure, Parameter parameter, int index, Literal literal) {
        String where = procedure + ": argument " + (index + 1) + " (" + parameter.name() + ", "
                + parameter.type().sqlName() + ")";
        if (literal.value() == null) {
            if (!parameter.nullable()) {
                throw new RulesException(where + " must not be NULL");
            }
            return null;
        }
        ParameterType type = parameter.type();
        if (type.isArray()) {
            if (!(literal.value() instanceof List<?> elements)) {
                throw new RulesException(where + " expects ARRAY[...], got " + show(literal));
            }
            List<Object> values = new ArrayList<>();
            for (Object element : elements) {
                Literal item = (Literal) element;
                values.add(item.value() == null ? null : scalar(where + " element", type.elementType(), item));
            }
            return values;
        }
        if (literal.value() instanceof List<?>) {
            throw new RulesException(where + " expects a single value, got an ARRAY");
        }
        return scalar(where, type, literal);
    }

    private static Object scalar(String where, ParameterType type, Literal literal) {
        String value = (String) literal.value();
        try {
            return switch (type) {
                case INTEGER -> {
                    requireUnquotedNumber(where, literal);
                    yield Integer.parseInt(value);
                }
                case BIGINT -> {
                    requireUnquotedNumber(where, literal);
                    yield Long.parseLong(value);
                }
                case NUMERIC -> {
                    requireUnquotedNumber(where, literal);
                    yield new BigDecimal(value);
                }
                case TEXT, VARCHAR -> {
                    if (!literal.quoted()) {
                        throw new RulesException(where + " expects a quoted string, got " + value);
                    }
                    yield value;
                }
                case TIMESTAMP -> {
                    if (!literal.quoted()) {
                        throw new RulesException(where + " expects a quoted timestamp, got " + value);
                    }
                    yield LocalDateTime.parse(value, TIMESTAMP);
                }
                default -> throw new IllegalStateException("array type " + type + " where a scalar is expected");
            };
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new RulesException(where + " cannot take " + show(literal));
        }
    }

    private static void requireUnquotedNumber(String where, Literal literal) {
        if (literal.quoted()) {
            throw new RulesException(where + " expects a number, got '" + literal.value() + "'");
        }
    }

    private static String show(Literal literal) {
        return literal.quoted() ? "'" + literal.value() + "'" : String.valueOf(literal.value());
    }

    private boolean identifierAt(int index) {
        return index < text.length() && (Character.isLetterOrDigit(text.charAt(index)) || text.charAt(index) == '_');
    }

    private char peek() {
        return position < text.length() ? text.charAt(position) : '\0';
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        position++;
    }

    private void skipSpaces() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }

    private RulesException error(String message) {
        String shown = position < text.length() ? "'" + text.charAt(position) + "'" : "the end";
        return new RulesException(
                "cannot parse call at position " + (position + 1) + " (" + shown + "): " + message + ": " + text);
    }
}
