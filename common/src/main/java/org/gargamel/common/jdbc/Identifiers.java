package org.gargamel.common.jdbc;

/** SQL identifiers as PostgreSQL reads them. */
public final class Identifiers {
    private Identifiers() {}

    /** {@code name} as a quoted identifier: in double quotes, each double quote doubled; exact, whatever it holds. */
    public static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
