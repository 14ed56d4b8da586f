package org.gargamel.classifier;

/**
 * One part of a key (of a write, or of a declared read), matched with one primary-key column: a parameter's value ({@code w_id}), the
 * value or a wildcard when the argument is NULL ({@code c_id?}), element i of an array parameter
 * ({@code item_ids[]}, all such parts of a key are zipped), an integer constant, or a wildcard ({@code *})
 * for a value the call cannot determine.
 */
public record KeyPart(Kind kind, String parameter, int parameterIndex, long constant) {
    public enum Kind {
        PARAMETER,
        PARAMETER_OR_WILDCARD,
        ELEMENT,
        CONSTANT,
        WILDCARD
    }

    public static final KeyPart WILDCARD = new KeyPart(Kind.WILDCARD, null, -1, 0);

    @Override
    public String toString() {
        return switch (kind) {
            case PARAMETER -> parameter;
            case PARAMETER_OR_WILDCARD -> parameter + "?";
            case ELEMENT -> parameter + "[]";
            case CONSTANT -> Long.toString(constant);
            case WILDCARD -> "*";
        };
    }
}
