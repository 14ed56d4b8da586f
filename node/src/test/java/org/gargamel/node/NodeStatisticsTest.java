package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Per procedure means of wall time and CPU (node and PostgreSQL), and what is left unknown rather than guessed. */
@Tag("unit")
class NodeStatisticsTest {
    private static final long MS = 1_000_000;

    @Test
    void executeAndApplyAreAveragedInWallTimeAndInCpuOnBothSides() {
        NodeStatistics statistics = new NodeStatistics("node-1");
        statistics.executed("payment", true, new CpuClock.Elapsed(10 * MS, 1 * MS, 3 * MS));
        statistics.executed("payment", false, new CpuClock.Elapsed(20 * MS, 3 * MS, 5 * MS));
        statistics.applied("payment", new CpuClock.Elapsed(4 * MS, 0, 1 * MS));

        Map<String, Object> payment = procedure(statistics, "payment");
        assertEquals(2L, payment.get("executed"));
        assertEquals(15.0, payment.get("executeMs"));
        assertEquals(2.0, payment.get("executeNodeCpuMs"));
        assertEquals(4.0, payment.get("executePostgresCpuMs"));
        assertEquals(6.0, payment.get("executeCpuMs"));
        assertEquals(1L, payment.get("appliedCount"));
        assertEquals(4.0, payment.get("applyMs"));
        assertEquals(1.0, payment.get("applyCpuMs"));
        assertEquals(1L, statistics.committed());
        assertEquals(1L, statistics.applied());
        assertTrue(statistics.render().contains("CPU node 2.0 + PostgreSQL 4.0 ms"), statistics.render());
    }

    @Test
    void aTotalNeedsPostgresqlMeasuredForEveryCall() {
        NodeStatistics statistics = new NodeStatistics("node-1");
        statistics.executed("payment", true, new CpuClock.Elapsed(10 * MS, 1 * MS, 3 * MS));
        statistics.executed("payment", true, new CpuClock.Elapsed(10 * MS, 1 * MS, -1));
        statistics.applied("delivery", new CpuClock.Elapsed(4 * MS, 2 * MS, -1));

        Map<String, Object> payment = procedure(statistics, "payment");
        assertEquals(1.0, payment.get("executeNodeCpuMs"));
        assertEquals(3.0, payment.get("executePostgresCpuMs"), "the mean over the calls it was measured for");
        assertNull(payment.get("executeCpuMs"), "one call's PostgreSQL side is unknown");
        Map<String, Object> delivery = procedure(statistics, "delivery");
        assertNull(delivery.get("applyPostgresCpuMs"));
        assertNull(delivery.get("applyCpuMs"));
        assertEquals(2.0, delivery.get("applyNodeCpuMs"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> procedure(NodeStatistics statistics, String name) {
        return ((Map<String, Map<String, Object>>) statistics.toMap().get("procedures")).get(name);
    }
}
