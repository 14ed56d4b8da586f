package org.gargamel.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ParameterType;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.tpcc.TpccRules;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Whatever a client sends, {@link Scheduler#place} places it or rejects it ({@link RejectedCallException}): any other
 * exception would be fatal to the scheduler's loop, so a client could stop the scheduler. Random calls, some of any
 * shape (unknown procedures, wrong arity, wrong types) and most typed as declared but with hostile values (NULLs,
 * NULL array elements, arrays of different lengths, empty and long arrays, extreme integers, numerics and timestamps).
 */
@Tag("unit")
class HostileCallsTest {
    private static final ClassifierRules RULES = ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE);
    private static final List<String> PROCEDURES =
            List.of("new_order", "payment", "delivery", "order_status", "stock_level", "no_such_procedure");

    @Test
    void everyCallIsPlacedOrRejectedNeverAnythingElse() {
        for (Mode mode : Mode.values()) {
            for (Isolation isolation : Isolation.values()) {
                // Seeded by the constants' names, not their order.
                run(
                        new SplittableRandom(
                                31L * mode.name().hashCode() + isolation.name().hashCode()),
                        mode,
                        isolation,
                        3_000);
            }
        }
    }

    private static void run(SplittableRandom random, Mode mode, Isolation isolation, int calls) {
        Scheduler scheduler = new Scheduler(RULES, mode, isolation);
        scheduler.addNode("a", 2);
        scheduler.addNode("b", 2);
        int placed = 0;
        int rejected = 0;
        for (int i = 0; i < calls; i++) {
            ProcedureCall call = call(random);
            if (call == null) {
                continue;
            }
            try {
                Placement placement = scheduler.place(call);
                placed++;
                scheduler.reportVisible("a", placement.txn());
                scheduler.reportVisible("b", placement.txn());
            } catch (RejectedCallException e) {
                rejected++;
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a rejection says why: " + call);
            } catch (RuntimeException | Error e) {
                throw new AssertionError(mode + "/" + isolation + ": " + call + " made place() throw " + e, e);
            }
        }
        String counts = mode + "/" + isolation + ": " + placed + " placed, " + rejected + " rejected";
        assertTrue(placed > calls / 10, "the generator reaches the placing path: " + counts);
        assertTrue(rejected > calls / 10, "and the rejecting one: " + counts);
        assertTrue(scheduler.inFlight() == 0, "everything reported: nothing left in flight: " + counts);
    }

    /** A random call, or null when even a client could not build it (ProcedureCall refuses it). */
    private static ProcedureCall call(SplittableRandom random) {
        String procedure = PROCEDURES.get(random.nextInt(PROCEDURES.size()));
        ProcedureRule rule = RULES.procedures().get(procedure);
        List<Object> arguments = new ArrayList<>();
        if (rule == null || random.nextInt(5) == 0) {
            int arity = rule == null
                    ? random.nextInt(6)
                    : Math.max(0, rule.parameters().size() + random.nextInt(3) - 1);
            for (int i = 0; i < arity; i++) {
                arguments.add(random.nextBoolean() ? anyScalar(random) : anyArray(random));
            }
        } else {
            for (Parameter parameter : rule.parameters()) {
                arguments.add(random.nextInt(12) == 0 ? null : typed(random, parameter.type()));
            }
        }
        try {
            return new ProcedureCall(procedure, arguments);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Object typed(SplittableRandom random, ParameterType type) {
        if (!type.isArray()) {
            return typedScalar(random, type);
        }
        int length = switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 1_000;
            default -> 1 + random.nextInt(15);
        };
        List<Object> elements = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            elements.add(random.nextInt(20) == 0 ? null : typedScalar(random, type.elementType()));
        }
        return elements;
    }

    private static Object typedScalar(SplittableRandom random, ParameterType type) {
        return switch (type) {
            case INTEGER -> integer(random);
            case BIGINT -> random.nextBoolean() ? integer(random) : (Object) extremeLong(random);
            case NUMERIC -> numeric(random);
            case TEXT, VARCHAR -> text(random);
            case TIMESTAMP -> timestamp(random);
            default -> throw new IllegalStateException("not a scalar type: " + type);
        };
    }

    private static Object anyScalar(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> null;
            case 1 -> integer(random);
            case 2 -> extremeLong(random);
            case 3 -> numeric(random);
            case 4 -> text(random);
            default -> timestamp(random);
        };
    }

    private static List<Object> anyArray(SplittableRandom random) {
        List<Object> elements = new ArrayList<>();
        for (int i = random.nextInt(5); i > 0; i--) {
            elements.add(anyScalar(random));
        }
        return elements;
    }

    private static int integer(SplittableRandom random) {
        return switch (random.nextInt(5)) {
            case 0 -> Integer.MIN_VALUE;
            case 1 -> Integer.MAX_VALUE;
            case 2 -> -random.nextInt(10);
            default -> 1 + random.nextInt(10);
        };
    }

    private static long extremeLong(SplittableRandom random) {
        return random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    private static BigDecimal numeric(SplittableRandom random) {
        return switch (random.nextInt(5)) {
            case 0 -> new BigDecimal(BigInteger.ONE, Integer.MIN_VALUE + 1);
            case 1 -> new BigDecimal(BigInteger.TEN, Integer.MAX_VALUE);
            case 2 -> new BigDecimal("-0.000001");
            default -> BigDecimal.valueOf(random.nextInt(100_000), 2);
        };
    }

    private static String text(SplittableRandom random) {
        return switch (random.nextInt(4)) {
            case 0 -> "";
            case 1 -> "BAR'BAR\"ABLE é \u0000";
            case 2 -> "x".repeat(10_000);
            default -> "OUGHTABLEPRI";
        };
    }

    private static LocalDateTime timestamp(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> LocalDateTime.MIN;
            case 1 -> LocalDateTime.MAX;
            default -> LocalDateTime.of(2026, 1, 1, 10, 0);
        };
    }
}
