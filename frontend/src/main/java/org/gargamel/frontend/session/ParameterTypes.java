package org.gargamel.frontend.session;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.classifier.ParameterType;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.sql.CallBuilder;
import org.gargamel.frontend.sql.SqlStatement;

/** The type of each parameter of a prepared statement, as ParameterDescription tells it and Bind reads it. */
final class ParameterTypes {
    private ParameterTypes() {}

    /**
     * Each parameter's type: for a call, the type the rules declare where {@code $n} stands (the element type inside
     * ARRAY[...]); for an ad-hoc read, the one the client gave or a replica described; else the client's, or text.
     */
    static List<Integer> of(Prepared prepared, Prepared.Described described, CallBuilder calls) {
        List<Integer> types = new ArrayList<>(prepared.parameterCount());
        for (int i = 0; i < prepared.parameterCount(); i++) {
            int given = i < prepared.parameterTypes().size()
                    ? prepared.parameterTypes().get(i)
                    : 0;
            types.add(given != 0 ? given : PgTypes.TEXT);
        }
        if (prepared.statement() instanceof SqlStatement.AdHocRead) {
            List<Integer> adHoc = adHoc(prepared, described);
            for (int i = 0; i < types.size(); i++) {
                if (adHoc.get(i) != 0) {
                    types.set(i, adHoc.get(i));
                }
            }
        }
        if (prepared.statement() instanceof SqlStatement.Call call) {
            ProcedureRule rule = calls.rule(call.procedure());
            for (int i = 0; i < call.arguments().size() && i < rule.parameters().size(); i++) {
                declare(call.arguments().get(i), rule.parameters().get(i).type(), types);
            }
        }
        return types;
    }

    /** Each parameter's type for an ad-hoc query: the client's, else the one a replica described, else 0 (infer). */
    static List<Integer> adHoc(Prepared prepared, Prepared.Described described) {
        List<Integer> types = new ArrayList<>(prepared.parameterCount());
        for (int i = 0; i < prepared.parameterCount(); i++) {
            int given = i < prepared.parameterTypes().size()
                    ? prepared.parameterTypes().get(i)
                    : 0;
            if (given == 0
                    && described != null
                    && i < described.parameterTypes().size()) {
                given = described.parameterTypes().get(i);
            }
            types.add(given);
        }
        return types;
    }

    /** A binary parameter's type: the one the client gave, else the one {@code types} has for it. */
    static int binaryType(Prepared prepared, List<Integer> types, int index) {
        int given = index < prepared.parameterTypes().size()
                ? prepared.parameterTypes().get(index)
                : 0;
        return given != 0 ? given : types.get(index);
    }

    private static void declare(SqlStatement.Argument argument, ParameterType type, List<Integer> types) {
        if (argument instanceof SqlStatement.Parameter parameter && parameter.number() <= types.size()) {
            types.set(parameter.number() - 1, oid(type));
        } else if (argument instanceof SqlStatement.ArrayOf array) {
            for (SqlStatement.Argument element : array.elements()) {
                declare(element, type.elementType(), types);
            }
        }
    }

    /** The pg_type OID of a rules type. */
    static int oid(ParameterType type) {
        return switch (type) {
            case INTEGER -> PgTypes.INT4;
            case BIGINT -> PgTypes.INT8;
            case NUMERIC -> PgTypes.NUMERIC;
            case TEXT -> PgTypes.TEXT;
            case VARCHAR -> PgTypes.VARCHAR;
            case TIMESTAMP -> PgTypes.TIMESTAMP;
            default -> PgTypes.arrayOf(oid(type.elementType()));
        };
    }
}
