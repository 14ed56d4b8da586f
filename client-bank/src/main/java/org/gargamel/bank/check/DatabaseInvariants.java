package org.gargamel.bank.check;

import java.util.List;
import java.util.Objects;

/** The bank's invariants on one database. */
public record DatabaseInvariants(String database, List<Invariant> invariants) {
    public DatabaseInvariants {
        Objects.requireNonNull(database, "database");
        invariants = List.copyOf(invariants);
    }

    public boolean passed() {
        return invariants.stream().allMatch(Invariant::passed);
    }

    /** One line per invariant, indented, marked VIOLATED where it failed. */
    public String render() {
        StringBuilder text = new StringBuilder(database)
                .append(passed() ? ": PASSED" : ": FAILED")
                .append('\n');
        for (Invariant invariant : invariants) {
            text.append(String.format(
                    "  %-8s %-40s %s%n", invariant.passed() ? "ok" : "VIOLATED", invariant.name(), invariant.detail()));
        }
        return text.toString();
    }
}
