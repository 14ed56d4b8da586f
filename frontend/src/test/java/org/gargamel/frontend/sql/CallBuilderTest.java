package org.gargamel.frontend.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.frontend.protocol.PgTypes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class CallBuilderTest {
    private static final ClassifierRules RULES =
            ClassifierRules.loadResource(CallBuilderTest.class, "/org/gargamel/frontend/shop-rules.yaml");
    private final StatementParser parser =
            new StatementParser(RULES.procedures().keySet());
    private final CallBuilder builder = new CallBuilder(RULES);

    private ProcedureCall build(String sql, String... parameters) {
        return builder.build((SqlStatement.Call) parser.parse(sql), Arrays.asList(parameters));
    }

    @Test
    void argumentsAreTypedByTheRulesNotByTheLiterals() {
        assertEquals(ProcedureCall.of("deposit", 3, new BigDecimal("7")), build("SELECT deposit('3', 7)"));
        assertEquals(
                ProcedureCall.of("deposit_each", List.of(1, 2), List.of(new BigDecimal("1.5"), new BigDecimal("2"))),
                build("SELECT deposit_each(ARRAY[1, $1], $2)", "2", "{1.5,2}"));
        assertEquals(
                ProcedureCall.of("listing", 1, 2, LocalDateTime.of(2026, 1, 2, 3, 4, 5, 500_000_000)),
                build("SELECT * FROM listing($1, $2, $3)", "1", "2.0", "2026-01-02 03:04:05.5+01"));
    }

    @Test
    void badArgumentsGetPostgresqlsSqlStates() {
        assertEquals("22P02", error("SELECT deposit('x', 1)").sqlState());
        assertEquals("22003", error("SELECT deposit(99999999999, 1)").sqlState());
        assertEquals("22P02", error("SELECT deposit(1.5, 1)").sqlState());
        assertEquals("42883", error("SELECT deposit(1)").sqlState());
        assertEquals("22004", error("SELECT deposit(NULL, 1)").sqlState());
        assertEquals("22P02", error("SELECT deposit_each('{1,', '{}')").sqlState());
    }

    private PgTypes.ValueException error(String sql) {
        return assertThrows(PgTypes.ValueException.class, () -> build(sql));
    }
}
