package org.gargamel.frontend.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class StatementParserTest {
    private final StatementParser parser = new StatementParser(Set.of("payment", "new_order", "stock_level"));

    @Test
    void theThreeCallFormsWithLiteralsArraysCastsAndParameters() {
        SqlStatement.Call value = (SqlStatement.Call)
                parser.parse("SELECT payment(1, -2, 'O''Brien', NULL, 10.50, '2026-01-01 10:00:00'::timestamp)");
        assertEquals(SqlStatement.Form.SELECT_VALUE, value.form());
        assertEquals("payment", value.procedure());
        assertEquals(
                List.of(
                        new SqlStatement.Literal("1"),
                        new SqlStatement.Literal("-2"),
                        new SqlStatement.Literal("O'Brien"),
                        new SqlStatement.Literal(null),
                        new SqlStatement.Literal("10.50"),
                        new SqlStatement.Literal("2026-01-01 10:00:00")),
                value.arguments());
        SqlStatement.Call from = (SqlStatement.Call) parser.parse(
                "select * from public.new_order($1, ARRAY[$2, 7]::int[], '{1,2}', CAST($3 AS numeric(10,2)))");
        assertEquals(SqlStatement.Form.SELECT_FROM, from.form());
        assertEquals(
                List.of(
                        new SqlStatement.Parameter(1),
                        new SqlStatement.ArrayOf(List.of(new SqlStatement.Parameter(2), new SqlStatement.Literal("7"))),
                        new SqlStatement.Literal("{1,2}"),
                        new SqlStatement.Parameter(3)),
                from.arguments());
        SqlStatement.Call call = (SqlStatement.Call) parser.parse("CALL stock_level(1, 2, 15)");
        assertEquals(SqlStatement.Form.CALL, call.form());
        SqlStatement.Call aliased = (SqlStatement.Call) parser.parse("SELECT stock_level(1, 2, 15) AS low");
        assertEquals("low", aliased.column());
    }

    @Test
    void aQueryStringSplitsOnlyOnSemicolonsOutsideQuotesAndComments() {
        List<SqlStatement> statements =
                parser.parseAll("BEGIN; SELECT payment(1, 'a;b', $x$;$x$) /* ; */ -- ;\n; COMMIT;");
        assertEquals(3, statements.size());
        assertInstanceOf(SqlStatement.Begin.class, statements.get(0));
        assertEquals(
                new SqlStatement.Literal("a;b"),
                ((SqlStatement.Call) statements.get(1)).arguments().get(1));
        assertInstanceOf(SqlStatement.Commit.class, statements.get(2));
        assertEquals(List.of(new SqlStatement.Empty()), parser.parseAll(" -- nothing\n"));
    }

    @Test
    void sessionCommands() {
        assertEquals(new SqlStatement.Set("application_name", "x y"), parser.parse("SET application_name = 'x y'"));
        assertEquals(new SqlStatement.Set("timezone", "UTC"), parser.parse("SET TIME ZONE 'UTC'"));
        assertEquals(new SqlStatement.Set("search_path", "a, b"), parser.parse("set search_path to a, b"));
        assertEquals(new SqlStatement.Set("datestyle", null), parser.parse("SET DateStyle TO DEFAULT"));
        assertEquals(new SqlStatement.Show("transaction_isolation"), parser.parse("SHOW TRANSACTION ISOLATION LEVEL"));
        assertEquals(new SqlStatement.Reset("all"), parser.parse("RESET ALL"));
        assertEquals(new SqlStatement.Version("version"), parser.parse("SELECT version()"));
    }

    @Test
    void everythingElseIsRefusedWithAReason() {
        SqlStatement.Refused insert = (SqlStatement.Refused) parser.parse("INSERT INTO warehouse VALUES (1)");
        assertEquals("0A000", insert.sqlState());
        assertTrue(insert.message().contains("INSERT is refused"), insert.message());
        assertTrue(insert.message().contains("new_order, payment, stock_level"), insert.message());
        assertEquals("0A000", ((SqlStatement.Refused) parser.parse("CREATE TABLE t (a int)")).sqlState());
        assertEquals("0A000", ((SqlStatement.Refused) parser.parse("SELECT payment(1) + 1")).sqlState());
        assertEquals("42883", ((SqlStatement.Refused) parser.parse("CALL pay(1)")).sqlState());
        assertThrows(SqlSyntaxException.class, () -> parser.parse("SELECT payment(1, 'open"));
        assertThrows(SqlSyntaxException.class, () -> parser.parse("SELECT payment(1, now())"));
    }

    @Test
    void readsThatAreNoCallAreAdHocReadsAndAnythingThatMayWriteIsNot() {
        for (String read : List.of(
                "SELECT * FROM warehouse",
                "select count(*) from pgbench_branches",
                "SELECT pay(1)",
                "SELECT nextval('x')",
                "SELECT 1",
                "WITH w AS (SELECT 1) SELECT * FROM w",
                "TABLE warehouse",
                "SELECT w.* FROM warehouse w",
                "VALUES (1, 'a')",
                "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$'",
                "SELECT 'insert into' AS \"update\"")) {
            assertEquals(new SqlStatement.AdHocRead(read), parser.parse(read), read);
        }
        assertEquals(
                new SqlStatement.AdHocRead("SELECT * FROM t WHERE a = $1"),
                parser.parse(" SELECT * FROM t WHERE a = $1\n"));
        for (String write : List.of(
                "WITH d AS (DELETE FROM warehouse RETURNING *) SELECT * FROM d",
                "SELECT * INTO copy FROM warehouse",
                "SELECT * FROM warehouse FOR UPDATE",
                "EXPLAIN SELECT 1",
                "PREPARE p AS SELECT 1")) {
            SqlStatement statement = parser.parse(write);
            assertTrue(
                    statement instanceof SqlStatement.Refused refused
                            && refused.sqlState().equals("0A000"),
                    write);
        }
    }

    @Test
    void parameterCountIsTheHighestDollarNumber() {
        assertEquals(3, StatementParser.parameterCount("SELECT payment($1, $3, '$2')"));
        assertEquals(0, StatementParser.parameterCount("SELECT payment(1)"));
    }
}
