package org.gargamel.tpcc.check;

import java.util.List;
import java.util.Objects;

/**
 * The consistency conditions of clause 3.3.2 checked on one database.
 *
 * @param database   the database's name in reports (index and URL without password)
 * @param passed     every condition passed
 * @param conditions one result per condition, in clause order
 */
public record ConsistencyReport(String database, boolean passed, List<ConditionResult> conditions) {

    public ConsistencyReport {
        Objects.requireNonNull(database, "database");
        conditions = List.copyOf(conditions);
        boolean allPassed = conditions.stream().allMatch(ConditionResult::passed);
        if (passed != allPassed) {
            throw new IllegalArgumentException(
                    database + ": passed=" + passed + " but the conditions say " + allPassed);
        }
    }

    public static ConsistencyReport of(String database, List<ConditionResult> conditions) {
        return new ConsistencyReport(database, conditions.stream().allMatch(ConditionResult::passed), conditions);
    }

    /** The result of condition {@code number} (1 to 12). */
    public ConditionResult condition(int number) {
        return conditions.stream()
                .filter(c -> c.number() == number)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no consistency condition " + number
                        + " in the report of " + database + "; it has "
                        + conditions.stream().map(ConditionResult::number).toList()));
    }

    /** The numbers of the conditions that failed, in clause order. */
    public List<Integer> failedConditions() {
        return conditions.stream()
                .filter(c -> !c.passed())
                .map(ConditionResult::number)
                .toList();
    }
}
