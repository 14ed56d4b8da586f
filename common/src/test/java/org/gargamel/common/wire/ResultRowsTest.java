package org.gargamel.common.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ResultRowsTest {
    private static final ResultRows.Column ID = new ResultRows.Column("id", 23);
    private static final ResultRows.Column BALANCE = new ResultRows.Column("balance", 1700);

    @Test
    void theSummaryIsTheFirstRowAsTheLibraryAlwaysGaveIt() {
        assertEquals("", ResultRows.EMPTY.summary());
        assertEquals("7", new ResultRows(List.of(ID), List.of(List.of("7"))).summary());
        assertEquals(
                "(7,10.00) (+2 rows)",
                new ResultRows(
                                List.of(ID, BALANCE),
                                List.of(List.of("7", "10.00"), List.of("8", "1.00"), List.of("9", "2.00")))
                        .summary());
        assertEquals("(7,null)", new ResultRows(List.of(ID, BALANCE), List.of(Arrays.asList("7", null))).summary());
    }

    @Test
    void aRowMustHaveAValuePerColumn() {
        IllegalArgumentException error = assertThrows(
                IllegalArgumentException.class, () -> new ResultRows(List.of(ID, BALANCE), List.of(List.of("7"))));
        assertEquals("a row of 1 value(s) where there are 2 column(s)", error.getMessage());
    }

    @Test
    void nullValuesSurviveTheWire() {
        CallOutcome outcome =
                CallOutcome.committed(1, 2, new ResultRows(List.of(ID, BALANCE), List.of(Arrays.asList(null, "1.00"))));
        CallOutcome decoded = (CallOutcome) WireCodec.decode(WireCodec.encode(outcome));
        assertEquals(outcome, decoded);
        assertEquals(Arrays.asList(null, "1.00"), decoded.rows().rows().get(0));
        assertEquals("(null,1.00)", decoded.result());
    }
}
