package org.gargamel.launcher.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The table printed after a run: execute against apply per procedure, in wall time and in CPU. */
@Tag("unit")
class ClusterStatisticsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void cpuIsWeightedOverTheNodesAndItsRatioPrinted() throws Exception {
        JsonNode first = JSON.readTree("""
                {"node": "node-1", "procedures": {"payment": {"executed": 1, "executeMs": 10.0, "executeCpuMs": 6.0,
                 "appliedCount": 3, "applyMs": 2.0, "applyCpuMs": 1.0}}}""");
        JsonNode second = JSON.readTree("""
                {"node": "node-2", "procedures": {"payment": {"executed": 3, "executeMs": 6.0, "executeCpuMs": 2.0,
                 "appliedCount": 1, "applyMs": 2.0, "applyCpuMs": 2.0}}}""");
        String table = new ClusterStatistics(List.of(first, second)).render();
        // execute CPU (1·6 + 3·2) / 4 = 3, apply CPU (3·1 + 1·2) / 4 = 1.25: 2.4x
        assertTrue(
                table.matches("(?s).*payment\\s+7\\.000\\s+2\\.000\\s+3\\.5x\\s+3\\.000\\s+1\\.250\\s+2\\.4x.*"),
                table);
    }

    @Test
    void cpuIsLeftOutWhereSomeNodeDidNotMeasurePostgresql() throws Exception {
        JsonNode measured = JSON.readTree("""
                {"node": "node-1", "procedures": {"payment": {"executed": 1, "executeMs": 10.0, "executeCpuMs": 6.0,
                 "appliedCount": 1, "applyMs": 2.0, "applyCpuMs": 1.0}}}""");
        JsonNode unmeasured = JSON.readTree("""
                {"node": "node-2", "procedures": {"payment": {"executed": 1, "executeMs": 10.0, "executeCpuMs": null,
                 "appliedCount": 1, "applyMs": 2.0, "applyCpuMs": null}}}""");
        String table = new ClusterStatistics(List.of(measured, unmeasured)).render();
        assertTrue(table.matches("(?s).*payment\\s+10\\.000\\s+2\\.000\\s+5\\.0x\\s+-\\s+-\\s+-\\n.*"), table);
    }
}
