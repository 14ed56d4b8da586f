package org.gargamel.tpcc.check;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.convergence.Snapshot;
import org.gargamel.common.convergence.SqlStates;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * Checks the consistency conditions 3.3.2.1 to 3.3.2.12 of TPC-C 5.11 on one database. Each condition is
 * one set-based query returning its violations, so a check costs a few scans of each table rather than
 * a query per district or customer; all queries read one snapshot (a read-only REPEATABLE READ
 * transaction), so a check taken while transactions still commit is still a check of one state.
 *
 * <p>Condition 11 holds only before a district's first Delivery; it is applied to the districts whose
 * order 2101 is still in new_order (see {@link ConsistencyCondition#BEFORE_FIRST_DELIVERY_JOIN}) and the
 * report says how many those were.
 */
public final class ConsistencyChecker {

    /** Checks the database at {@code jdbcUrl}, named in the report as {@code database}. */
    public ConsistencyReport check(String jdbcUrl, String database) {
        try (Connection connection = JdbcConnections.connect(jdbcUrl)) {
            return check(connection, database);
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot connect to " + database + " to check consistency: " + e.getMessage()
                            + SqlStates.describe(e),
                    e);
        }
    }

    /** Checks the database at {@code jdbcUrl}, named in the report by its URL without password. */
    public ConsistencyReport check(String jdbcUrl) {
        return check(jdbcUrl, DatabaseNames.withoutPassword(jdbcUrl));
    }

    /**
     * Checks the database behind {@code connection} in a transaction of its own (the connection must not
     * be inside a transaction); its auto-commit mode is restored afterwards.
     */
    public ConsistencyReport check(Connection connection, String database) {
        try (Snapshot snapshot = Snapshot.begin(connection, database)) {
            Map<ConsistencyCondition.Unit, Long> checked = countUnits(connection, database);
            long districts = checked.get(ConsistencyCondition.Unit.DISTRICTS);
            List<ConditionResult> results = new ArrayList<>();
            for (ConsistencyCondition condition : ConsistencyCondition.values()) {
                results.add(check(connection, database, condition, checked.get(condition.unit()), districts));
            }
            snapshot.commit();
            return ConsistencyReport.of(database, results);
        }
    }

    private static Map<ConsistencyCondition.Unit, Long> countUnits(Connection connection, String database) {
        Map<ConsistencyCondition.Unit, Long> counts = new EnumMap<>(ConsistencyCondition.Unit.class);
        for (ConsistencyCondition.Unit unit : ConsistencyCondition.Unit.values()) {
            try (Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(unit.countSql())) {
                rows.next();
                counts.put(unit, rows.getLong(1));
            } catch (SQLException e) {
                throw new CheckException(
                        "cannot count the " + unit.label() + " of " + database + ": " + e.getMessage()
                                + SqlStates.describe(e),
                        e);
            }
        }
        return counts;
    }

    private static ConditionResult check(
            Connection connection, String database, ConsistencyCondition condition, long checked, long districts) {
        long violations = 0;
        List<String> examples = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(condition.examplesSql(ConditionResult.MAX_EXAMPLES))) {
            while (rows.next()) {
                violations = rows.getLong("violations");
                examples.add(rows.getString("example"));
            }
        } catch (SQLException e) {
            throw new CheckException(
                    "cannot check consistency condition " + condition.number() + " (" + condition.description()
                            + ") on " + database + ": " + e.getMessage() + SqlStates.describe(e),
                    e);
        }
        boolean applicable = checked > 0;
        return new ConditionResult(
                condition.number(),
                condition.description(),
                violations == 0,
                applicable,
                checked,
                condition.unit().label(),
                violations,
                examples,
                note(condition, checked, districts));
    }

    private static String note(ConsistencyCondition condition, long checked, long districts) {
        if (condition.unit() != ConsistencyCondition.Unit.DISTRICTS_BEFORE_FIRST_DELIVERY) {
            return checked == 0 ? "nothing to check: no " + condition.unit().label() : "";
        }
        if (checked == 0) {
            return "not applicable: every district has had a Delivery (no order 2101 is left in new_order)";
        }
        if (checked < districts) {
            return "applied to " + checked + " of " + districts + " districts; the other " + (districts - checked)
                    + " have had a Delivery: their order 2101 is no longer in new_order";
        }
        return "applied to all " + districts + " districts (no Delivery yet)";
    }
}
