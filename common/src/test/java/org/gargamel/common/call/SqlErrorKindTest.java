package org.gargamel.common.call;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.SQLException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Only PostgreSQL's own meanings: an application's SQLSTATEs for expected rollbacks (the TPC-C kit's GA001 and 22023)
 * are that application's business (its {@code TpccErrors}), so here they are fatal like any unknown error.
 */
@Tag("unit")
class SqlErrorKindTest {
    @Test
    void serializationFailuresAndDeadlocksAreRetryable() {
        assertEquals(SqlErrorKind.RETRYABLE, SqlErrorKind.classify("40001"));
        assertEquals(SqlErrorKind.RETRYABLE, SqlErrorKind.classify("40P01"));
        assertEquals(SqlErrorKind.RETRYABLE, SqlErrorKind.classify(new SQLException("could not serialize", "40001")));
    }

    @Test
    void errorsRaisedFromPlpgsqlAreUserAborts() {
        assertEquals(SqlErrorKind.USER_ABORT, SqlErrorKind.classify("P0001"));
        assertEquals(SqlErrorKind.USER_ABORT, SqlErrorKind.classify("P0002"));
    }

    @Test
    void everythingElseIsFatalIncludingTheTpccKitsOwnStates() {
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify("GA001"), "TPC-C's unused item: the kit's rule");
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify("22023"), "TPC-C's argument checks: the kit's rule");
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify("25P02"));
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify("08006"));
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify("40002"), "only 40001 and 40P01 of class 40");
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify((String) null));
        assertEquals(SqlErrorKind.FATAL, SqlErrorKind.classify(new SQLException("connection lost")));
    }
}
