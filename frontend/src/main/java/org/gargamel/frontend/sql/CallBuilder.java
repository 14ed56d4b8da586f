package org.gargamel.frontend.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ParameterType;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.classifier.RulesException;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.frontend.protocol.ArrayLiteral;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.protocol.PgTypes.ValueException;

/**
 * Turns a parsed call and its bound parameters into the {@link ProcedureCall} the library would have built: each
 * argument typed by the parameter the rules declare for it (not by what the client's literal or cast suggests), then
 * checked against the rule as the scheduler checks it. Errors carry PostgreSQL's SQLSTATEs (22P02 bad text, 22003 out
 * of range, 22004 a NULL where none is allowed, 42883 wrong arity).
 */
public final class CallBuilder {
    private final ClassifierRules rules;

    public CallBuilder(ClassifierRules rules) {
        this.rules = rules;
    }

    /** The rule of {@code procedure} (known to the parser). */
    public ProcedureRule rule(String procedure) {
        return rules.procedure(procedure);
    }

    /**
     * The call, with {@code parameters} ({@code $1} first) as text; null is NULL. An array parameter's text is
     * PostgreSQL's array literal.
     */
    public ProcedureCall build(SqlStatement.Call call, List<String> parameters) {
        ProcedureRule rule = rules.procedure(call.procedure());
        List<Parameter> declared = rule.parameters();
        if (call.arguments().size() != declared.size()) {
            throw new ValueException(
                    "42883",
                    "function " + call.procedure() + " with " + call.arguments().size()
                            + " argument(s) does not exist: " + call.procedure() + " takes " + declared.size() + " ("
                            + signature(rule) + ")");
        }
        List<Object> values = new ArrayList<>(declared.size());
        for (int i = 0; i < declared.size(); i++) {
            values.add(value(call.arguments().get(i), declared.get(i), parameters));
        }
        ProcedureCall built = new ProcedureCall(call.procedure(), values);
        try {
            rules.check(built);
        } catch (RulesException e) {
            throw new ValueException(e.getMessage().contains("must not be NULL") ? "22004" : "22023", e.getMessage());
        }
        return built;
    }

    /** The declared parameters, e.g. {@code w_id integer, item_ids integer[]}. */
    public static String signature(ProcedureRule rule) {
        List<String> parts = new ArrayList<>();
        for (Parameter parameter : rule.parameters()) {
            parts.add(parameter.name() + " " + parameter.type().sqlName());
        }
        return String.join(", ", parts);
    }

    private static Object value(SqlStatement.Argument argument, Parameter parameter, List<String> parameters) {
        ParameterType type = parameter.type();
        if (argument instanceof SqlStatement.Parameter reference) {
            if (reference.number() > parameters.size()) {
                throw new ValueException(
                        "08P01", "there is no parameter $" + reference.number() + " (" + parameters.size() + " bound)");
            }
            return fromText(parameters.get(reference.number() - 1), type, parameter);
        }
        if (argument instanceof SqlStatement.ArrayOf array) {
            if (!type.isArray()) {
                throw new ValueException(
                        "42804", "argument " + parameter.name() + " is " + type.sqlName() + ", not an array");
            }
            List<Object> elements = new ArrayList<>(array.elements().size());
            for (SqlStatement.Argument element : array.elements()) {
                Parameter elementParameter = new Parameter(parameter.name(), type.elementType(), true);
                elements.add(value(element, elementParameter, parameters));
            }
            return elements;
        }
        return fromText(((SqlStatement.Literal) argument).text(), type, parameter);
    }

    /** A value's text (a literal, a parameter's text, an array literal for an array type) as the declared type. */
    static Object fromText(String text, ParameterType type, Parameter parameter) {
        if (text == null) {
            return null;
        }
        if (type.isArray()) {
            List<Object> elements = new ArrayList<>();
            for (String element : ArrayLiteral.parse(text)) {
                elements.add(fromText(element, type.elementType(), parameter));
            }
            return elements;
        }
        String trimmed = text.trim();
        try {
            return switch (type) {
                case INTEGER -> Integer.valueOf(integerText(trimmed));
                case BIGINT -> Long.valueOf(integerText(trimmed));
                case NUMERIC -> new BigDecimal(trimmed);
                case TEXT, VARCHAR -> text;
                case TIMESTAMP -> PgTypes.parseTimestamp(trimmed);
                default -> throw new ValueException("0A000", "unsupported parameter type " + type.sqlName());
            };
        } catch (NumberFormatException | java.time.DateTimeException e) {
            boolean outOfRange =
                    (type == ParameterType.INTEGER || type == ParameterType.BIGINT) && trimmed.matches("[+-]?\\d+");
            throw new ValueException(
                    outOfRange ? "22003" : "22P02",
                    outOfRange
                            ? "value \"" + trimmed + "\" is out of range for type " + type.sqlName() + " (argument "
                                    + parameter.name() + ")"
                            : "invalid input syntax for type " + type.sqlName() + ": \"" + text + "\" (argument "
                                    + parameter.name() + ")");
        }
    }

    /** PostgreSQL takes {@code 42.0} for an integer only if it has no fraction; so do we. */
    private static String integerText(String text) {
        if (text.indexOf('.') >= 0) {
            BigDecimal decimal = new BigDecimal(text);
            if (decimal.stripTrailingZeros().scale() > 0) {
                throw new NumberFormatException("not an integer");
            }
            return decimal.toBigInteger().toString();
        }
        return text.startsWith("+") ? text.substring(1) : text;
    }
}
