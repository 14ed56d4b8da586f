package org.gargamel.tpcc.check;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of one consistency condition of clause 3.3.2 on one database.
 *
 * @param number     the condition's number, 1 to 12 (clause 3.3.2.number)
 * @param name       what the condition requires, in the specification's column names
 * @param passed     no violation was found (also true when the condition was not applicable)
 * @param applicable the condition applied to at least one unit (only condition 11 can be inapplicable)
 * @param checked    how many units (warehouses, districts, orders, order lines or customers) were checked
 * @param unit       what {@code checked} counts, e.g. "districts"
 * @param violations how many units violate the condition
 * @param examples   up to {@link #MAX_EXAMPLES} violations, each naming its key and the values compared
 * @param note       what the condition applied to, when that needs saying; empty otherwise
 */
public record ConditionResult(
        int number,
        String name,
        boolean passed,
        boolean applicable,
        long checked,
        String unit,
        long violations,
        List<String> examples,
        String note) {

    /** Examples kept per condition: enough to find the fault, few enough to print. */
    public static final int MAX_EXAMPLES = 5;

    public ConditionResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        examples = List.copyOf(examples);
        note = note == null ? "" : note;
        if (examples.size() > MAX_EXAMPLES) {
            throw new IllegalArgumentException(
                    "condition " + number + ": at most " + MAX_EXAMPLES + " examples, got " + examples.size());
        }
        if (passed != (violations == 0)) {
            throw new IllegalArgumentException(
                    "condition " + number + ": passed=" + passed + " contradicts " + violations + " violations");
        }
    }

    /** The specification's clause for this condition, e.g. "3.3.2.5". */
    public String clause() {
        return "3.3.2." + number;
    }
}
