package org.gargamel.bank.check;

import java.util.Objects;

/** One invariant checked on one database: whether it held, and what was found (a count, an example). */
public record Invariant(String name, boolean passed, String detail) {
    public Invariant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(detail, "detail");
    }
}
