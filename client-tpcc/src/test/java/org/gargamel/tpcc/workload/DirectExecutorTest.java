package org.gargamel.tpcc.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.provisioning.PostgresCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** How the direct executor classifies what a procedure does: commit, user abort, retried conflict, failure. */
@Tag("integration")
class DirectExecutorTest {

    @Test
    void outcomesAreClassifiedAndConflictsRetried() throws Exception {
        try (PostgresCluster cluster = PostgresCluster.embedded(1)) {
            try (Connection connection = cluster.connect(0);
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE attempts (n int)");
                statement.execute("INSERT INTO attempts VALUES (0)");
                statement.execute("""
                        CREATE FUNCTION flaky(failures int) RETURNS int LANGUAGE plpgsql AS $$
                        DECLARE seen int;
                        BEGIN
                            -- Counts attempts outside the transaction that fails: a serialization failure
                            -- rolls back, so the counter lives in a sequence.
                            seen := nextval('attempt_counter');
                            IF seen <= failures THEN
                                RAISE EXCEPTION 'simulated conflict %', seen USING ERRCODE = '40001';
                            END IF;
                            UPDATE attempts SET n = seen;
                            RETURN seen;
                        END $$""");
                statement.execute("CREATE SEQUENCE attempt_counter");
                statement.execute("""
                        CREATE FUNCTION refuse(x int) RETURNS int LANGUAGE plpgsql AS $$
                        BEGIN
                            UPDATE attempts SET n = -1;
                            RAISE EXCEPTION 'Item number is not valid' USING ERRCODE = 'GA001';
                        END $$""");
            }
            try (DirectExecutor executor = new DirectExecutor(cluster.jdbcUrl(0), DirectIsolation.READ_COMMITTED, 5)) {
                ExecutionOutcome retried = executor.execute(ProcedureCall.of("flaky", 2));
                assertEquals(ExecutionOutcome.Kind.COMMITTED, retried.kind(), retried.toString());
                assertEquals(2, retried.conflictAborts());
                assertEquals(2, retried.retries());

                ExecutionOutcome refused = executor.execute(ProcedureCall.of("refuse", 1));
                assertEquals(ExecutionOutcome.Kind.USER_ABORT, refused.kind());
                assertEquals("GA001", refused.sqlState());
                assertTrue(refused.message().contains("Item number is not valid"), refused.message());

                ExecutionOutcome missing = executor.execute(ProcedureCall.of("no_such_procedure", 1));
                assertEquals(ExecutionOutcome.Kind.FAILED, missing.kind());
                assertEquals("42883", missing.sqlState());
            }
            try (DirectExecutor stubborn = new DirectExecutor(cluster.jdbcUrl(0), DirectIsolation.READ_COMMITTED, 1)) {
                ExecutionOutcome exhausted = stubborn.execute(ProcedureCall.of("flaky", 100));
                assertEquals(ExecutionOutcome.Kind.FAILED, exhausted.kind(), "retries must be bounded");
                assertEquals(2, exhausted.conflictAborts());
                assertEquals(1, exhausted.retries());
            }
            try (Connection connection = cluster.connect(0);
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT n FROM attempts")) {
                rows.next();
                assertEquals(3, rows.getInt(1), "only the committed attempt and no user-aborted write may remain");
            }
        }
    }
}
