package org.gargamel.node.certify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.wire.WriteSet;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What orders write-sets in parallel apply: rows by primary key, or the whole table where rows do not tell. */
@Tag("unit")
class PrimaryKeysTest {
    private static final PrimaryKeys KEYS = PrimaryKeys.of(
            Map.of("stock", List.of("s_w_id", "s_i_id"), "customer", List.of("c_id")), Set.of("customer"));

    private static WriteSet writeSet(RowChange... changes) {
        return new WriteSet(1, "node-1", "p", new long[0], 0, List.of(changes));
    }

    @Test
    void changesOfOneRowShareTheirKeyAndOtherRowsDoNot() {
        Set<String> first = KEYS.applyKeys(writeSet(
                new RowChange("stock", Operation.UPDATE, "{\"s_w_id\": 1, \"s_i_id\": 7, \"s_quantity\": 3}")));
        Set<String> sameRow = KEYS.applyKeys(
                writeSet(new RowChange("stock", Operation.UPDATE, "{\"s_i_id\": 7, \"s_w_id\": 1, \"s_ytd\": 9}")));
        Set<String> otherRow = KEYS.applyKeys(writeSet(
                new RowChange("stock", Operation.UPDATE, "{\"s_w_id\": 1, \"s_i_id\": 8, \"s_quantity\": 3}")));
        assertEquals(Set.of("stock:1,7,"), first);
        assertEquals(first, sameRow, "the key columns' order in the row does not matter");
        assertNotEquals(first, otherRow);
    }

    @Test
    void aTableWithAnotherUniqueIndexOrWithoutAKeyIsOneRow() {
        Set<String> keys = KEYS.applyKeys(writeSet(
                new RowChange("customer", Operation.UPDATE, "{\"c_id\": 1, \"c_email\": \"a@b\"}"),
                new RowChange("history", Operation.INSERT, "{\"h_amount\": 10}"),
                new RowChange("stock", Operation.DELETE, "{\"s_w_id\": 2, \"s_i_id\": 1}")));
        assertEquals(Set.of("customer", "history", "stock:2,1,"), keys);
    }
}
