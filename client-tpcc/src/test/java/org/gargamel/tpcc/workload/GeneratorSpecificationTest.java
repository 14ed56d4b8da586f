package org.gargamel.tpcc.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.tpcc.random.NURandConstants;
import org.gargamel.tpcc.random.TpccRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Holds the input generators to the specification (clauses 2.1.6, 2.4.1, 2.5.1, 2.6.1, 5.2.4). Fixed
 * seeds and large samples: each bound is many standard deviations wide, so the tests never flake, yet
 * a generator that is off by a point fails.
 */
@Tag("unit")
class GeneratorSpecificationTest {
    private static final int SAMPLES = 200_000;
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T10:00:00Z"), ZoneOffset.UTC);
    private static final NURandConstants CONSTANTS = new NURandConstants(123, 456, 7890);

    private static TerminalContext terminal(long seed, int home, int warehouses) {
        return new TerminalContext(new TpccRandom(seed, CONSTANTS), home, 1, warehouses, CLOCK);
    }

    private static void assertPercent(double expected, double tolerance, long count, long total, String what) {
        double percent = 100.0 * count / total;
        assertTrue(
                Math.abs(percent - expected) <= tolerance,
                what + ": expected " + expected + "% ± " + tolerance + ", measured " + percent + "%");
    }

    @Test
    void nurandStaysInItsRangeAndIsNonUniform() {
        TpccRandom random = new TpccRandom(1, CONSTANTS);
        int[][] ranges = {
            {NURandConstants.A_C_LAST, 0, 999},
            {NURandConstants.A_C_ID, 1, 3000},
            {NURandConstants.A_OL_I_ID, 1, 100_000}
        };
        for (int[] range : ranges) {
            int a = range[0];
            int low = range[1];
            int high = range[2];
            int[] counts = new int[high - low + 1];
            int min = Integer.MAX_VALUE;
            int max = Integer.MIN_VALUE;
            for (int i = 0; i < SAMPLES * 5; i++) {
                int value = random.nonUniform(a, low, high);
                min = Math.min(min, value);
                max = Math.max(max, value);
                counts[value - low]++;
            }
            assertTrue(
                    min >= low && max <= high,
                    "NURand(" + a + ") left [" + low + ", " + high + "]: " + min + ".." + max);
            assertEquals(low, min, "NURand(" + a + ") never reached its lower bound");
            int hottest = java.util.Arrays.stream(counts).max().orElseThrow();
            double uniformShare = (double) SAMPLES * 5 / counts.length;
            assertTrue(
                    hottest > 3 * uniformShare,
                    "NURand(" + a + ") looks uniform: hottest value " + hottest + " draws against " + uniformShare
                            + " expected under uniformity");
        }
    }

    @Test
    void runConstantForLastNamesKeepsTheDeltaRule() {
        assertFalse(NURandConstants.isValidRunDelta(64));
        assertTrue(NURandConstants.isValidRunDelta(65));
        assertFalse(NURandConstants.isValidRunDelta(96));
        assertFalse(NURandConstants.isValidRunDelta(112));
        assertTrue(NURandConstants.isValidRunDelta(119));
        assertFalse(NURandConstants.isValidRunDelta(120));
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            NURandConstants load = NURandConstants.forLoad(random);
            NURandConstants run = NURandConstants.forRun(load, random);
            int delta = Math.abs(run.cLast() - load.cLast());
            assertTrue(NURandConstants.isValidRunDelta(delta), "delta " + delta + " for load " + load + ", run " + run);
        }
    }

    @Test
    void onePercentOfNewOrdersCarryAnUnusedItemOnTheirLastLineOnly() {
        TerminalContext terminal = terminal(11, 1, 1);
        long rollbacks = 0;
        for (int i = 0; i < SAMPLES; i++) {
            ProcedureCall call = NewOrder.generate(terminal);
            @SuppressWarnings("unchecked")
            List<Integer> items = (List<Integer>) call.arguments().get(3);
            assertTrue(items.size() >= 5 && items.size() <= 15, "line count " + items.size());
            for (int line = 0; line < items.size() - 1; line++) {
                int item = items.get(line);
                assertTrue(item >= 1 && item <= 100_000, "line " + (line + 1) + " has item " + item);
            }
            if (items.get(items.size() - 1) == NewOrder.UNUSED_ITEM_ID) {
                rollbacks++;
            }
        }
        assertPercent(1.0, 0.15, rollbacks, SAMPLES, "New-Orders with an unused item");
    }

    @Test
    void onePercentOfOrderLinesAreSuppliedRemotelyWhenThereAreSeveralWarehouses() {
        for (int warehouses : new int[] {1, 4}) {
            TerminalContext terminal = terminal(12, 2 > warehouses ? 1 : 2, warehouses);
            long lines = 0;
            long remote = 0;
            for (int i = 0; i < SAMPLES; i++) {
                ProcedureCall call = NewOrder.generate(terminal);
                @SuppressWarnings("unchecked")
                List<Integer> supply = (List<Integer>) call.arguments().get(4);
                for (int warehouse : supply) {
                    lines++;
                    assertTrue(warehouse >= 1 && warehouse <= warehouses, "supply warehouse " + warehouse);
                    if (warehouse != terminal.homeWarehouse()) {
                        remote++;
                    }
                }
            }
            assertPercent(
                    warehouses == 1 ? 0.0 : 1.0,
                    warehouses == 1 ? 0.0 : 0.05,
                    remote,
                    lines,
                    "remote order lines with " + warehouses + " warehouse(s)");
        }
    }

    @Test
    void fifteenPercentOfPaymentsAreRemoteAndSixtyPercentChooseTheCustomerByLastName() {
        for (int warehouses : new int[] {1, 4}) {
            TerminalContext terminal = terminal(13, 1, warehouses);
            long remote = 0;
            long byName = 0;
            for (int i = 0; i < SAMPLES; i++) {
                List<Object> arguments = Payment.generate(terminal).arguments();
                if (!arguments.get(2).equals(arguments.get(0))) {
                    remote++;
                }
                if (arguments.get(4) == null) {
                    byName++;
                    assertTrue(arguments.get(5) instanceof String, "by-name payment without a last name");
                } else {
                    assertNull(arguments.get(5), "payment with both c_id and c_last");
                }
                BigDecimal amount = (BigDecimal) arguments.get(6);
                assertTrue(
                        amount.compareTo(new BigDecimal("1.00")) >= 0
                                && amount.compareTo(new BigDecimal("5000.00")) <= 0
                                && amount.scale() == 2,
                        "amount " + amount);
            }
            assertPercent(
                    warehouses == 1 ? 0.0 : 15.0,
                    warehouses == 1 ? 0.0 : 0.5,
                    remote,
                    SAMPLES,
                    "remote payments with " + warehouses + " warehouse(s)");
            assertPercent(60.0, 0.5, byName, SAMPLES, "payments by last name");
        }
    }

    @Test
    void sixtyPercentOfOrderStatusesChooseTheCustomerByLastName() {
        TerminalContext terminal = terminal(14, 1, 1);
        long byName = 0;
        for (int i = 0; i < SAMPLES; i++) {
            if (OrderStatus.generate(terminal).arguments().get(2) == null) {
                byName++;
            }
        }
        assertPercent(60.0, 0.5, byName, SAMPLES, "order-status by last name");
    }

    @Test
    void everyDeckOfHundredCardsHasTheExactMix() {
        TransactionMix mix = new TransactionMix(new TpccRandom(15, CONSTANTS));
        for (int deck = 0; deck < 50; deck++) {
            Map<TransactionType, Integer> counts = new EnumMap<>(TransactionType.class);
            TransactionType[] firstTen = new TransactionType[10];
            for (int card = 0; card < 100; card++) {
                TransactionType type = mix.next();
                if (card < 10) {
                    firstTen[card] = type;
                }
                counts.merge(type, 1, Integer::sum);
            }
            for (TransactionType type : TransactionType.values()) {
                assertEquals(type.cardsPerDeck(), counts.get(type), type + " in deck " + deck);
            }
        }
    }

    @Test
    void callsRenderAsPsqlWouldAcceptThem() {
        ProcedureCall call = ProcedureCall.of(
                "payment",
                1,
                2,
                1,
                2,
                null,
                "BARBARABLE",
                new BigDecimal("10.00"),
                CLOCK.instant().atZone(ZoneOffset.UTC).toLocalDateTime());
        assertEquals("payment(1, 2, 1, 2, NULL, 'BARBARABLE', 10.00, '2026-01-01 10:00:00')", call.toSql());
        ProcedureCall newOrder = ProcedureCall.of(
                "new_order",
                1,
                3,
                42,
                List.of(7, 99),
                List.of(1, 1),
                List.of(5, 2),
                CLOCK.instant().atZone(ZoneOffset.UTC).toLocalDateTime());
        assertEquals(
                "new_order(1, 3, 42, ARRAY[7,99], ARRAY[1,1], ARRAY[5,2], '2026-01-01 10:00:00')", newOrder.toSql());
    }
}
