package org.gargamel.tpcc.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.DatabaseChecksums;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.convergence.TableChecksum;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class CheckReportTest {

    private static DatabaseChecksums database(String name, long itemRows, String itemChecksum) {
        return new DatabaseChecksums(
                name,
                List.of(new TableChecksum("warehouse", 1, "aaaa"), new TableChecksum("item", itemRows, itemChecksum)));
    }

    @Test
    void theMinorityIsNamedAsDiffering() {
        ConvergenceReport report = ConvergenceReport.of(
                List.of(database("db0", 10, "x"), database("db1", 10, "y"), database("db2", 10, "y")));

        assertFalse(report.identical());
        assertEquals(List.of("item"), report.differingTables());
        assertEquals(List.of("db0"), report.table("item").differing());
        assertTrue(report.table("warehouse").identical());
    }

    @Test
    void aTieIsResolvedInFavourOfTheFirstDatabase() {
        ConvergenceReport report = ConvergenceReport.of(List.of(database("db0", 10, "x"), database("db1", 10, "y")));

        assertEquals(List.of("db1"), report.table("item").differing());
    }

    @Test
    void aDifferentRowCountIsADifferenceEvenWithTheSameChecksum() {
        ConvergenceReport report = ConvergenceReport.of(
                List.of(database("db0", 10, "x"), database("db1", 11, "x"), database("db2", 10, "x")));

        assertEquals(List.of("db1"), report.table("item").differing());
    }

    @Test
    void passwordsAreMaskedInDatabaseNames() {
        assertEquals(
                "db2 jdbc:postgresql://h:5432/tpcc?user=u&password=***&ssl=true",
                DatabaseNames.of(2, "jdbc:postgresql://h:5432/tpcc?user=u&password=s3cret&ssl=true"));
    }

    @Test
    void aReportCannotContradictItself() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new ConditionResult(3, "c", true, true, 2, "districts", 1, List.of("x"), ""));
        ConditionResult failed = new ConditionResult(3, "c", false, true, 2, "districts", 1, List.of("x"), "");
        assertThrows(IllegalArgumentException.class, () -> new ConsistencyReport("db0", true, List.of(failed)));
    }

    @Test
    void theResultMapSerialisesWithJackson() throws Exception {
        ConditionResult ok = new ConditionResult(
                1, "W_YTD = sum(D_YTD) per warehouse", true, true, 4, "warehouses", 0, List.of(), "");
        ConditionResult failed = new ConditionResult(
                9,
                "D_YTD = sum(H_AMOUNT) per district",
                false,
                true,
                40,
                "districts",
                2,
                List.of(
                        "d_w_id=1, d_id=3: d_ytd 1.00, sum(h_amount) 2.00",
                        "d_w_id=4, d_id=1: d_ytd 1.00, sum(h_amount) 2.00"),
                "");
        CheckReport report = CheckReport.of(
                List.of(ConsistencyReport.of("db0", List.of(ok, failed))),
                ConvergenceReport.of(List.of(database("db0", 10, "x"))));

        JsonNode json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report.toResultMap()));

        assertFalse(json.get("passed").asBoolean());
        assertEquals(
                "3.3.2.9",
                json.at("/consistency/databases/0/conditions/1/clause").asText());
        assertEquals(
                2, json.at("/consistency/databases/0/conditions/1/violations").asLong());
        assertEquals(
                "d_w_id=1, d_id=3: d_ytd 1.00, sum(h_amount) 2.00",
                json.at("/consistency/databases/0/conditions/1/examples/0").asText());
        assertTrue(json.at("/convergence/identical").asBoolean());
        assertEquals(10, json.at("/convergence/tables/1/checksums/0/rows").asLong());

        String text = report.render();
        assertTrue(
                text.contains("  db0  9  D_YTD = sum(H_AMOUNT) per district: VIOLATED in 2 of 40 districts, e.g."
                        + " d_w_id=1, d_id=3: d_ytd 1.00, sum(h_amount) 2.00"),
                text);
        assertTrue(text.contains("convergence of 1 database: nothing to compare"), text);
    }
}
