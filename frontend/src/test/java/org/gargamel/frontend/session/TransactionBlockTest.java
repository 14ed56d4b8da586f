package org.gargamel.frontend.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.gargamel.frontend.sql.SqlStatement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The transaction block's rules as a plain value: status bytes, the failure of a block, 25P02. */
@Tag("unit")
class TransactionBlockTest {
    @Test
    void eachBlockHasItsReadyForQueryStatus() {
        assertEquals('I', TransactionBlock.IDLE.status());
        assertEquals('T', TransactionBlock.IN_BLOCK.status());
        assertEquals('E', TransactionBlock.FAILED.status());
    }

    @Test
    void anErrorFailsABlockAndLeavesIdleIdle() {
        assertEquals(TransactionBlock.FAILED, TransactionBlock.IN_BLOCK.afterError());
        assertEquals(TransactionBlock.FAILED, TransactionBlock.FAILED.afterError());
        assertEquals(TransactionBlock.IDLE, TransactionBlock.IDLE.afterError());
        assertEquals("ROLLBACK", TransactionBlock.FAILED.commitTag());
        assertEquals("COMMIT", TransactionBlock.IN_BLOCK.commitTag());
    }

    @Test
    void aFailedBlockTakesOnlyCommitAndRollback() {
        SqlError refused = assertThrows(
                SqlError.class, () -> TransactionBlock.FAILED.admit(new SqlStatement.Show("application_name")));
        assertEquals("25P02", refused.sqlState);
        assertThrows(SqlError.class, () -> TransactionBlock.FAILED.admit(new SqlStatement.Begin()));
        TransactionBlock.FAILED.admit(new SqlStatement.Commit());
        TransactionBlock.FAILED.admit(new SqlStatement.Rollback());
        TransactionBlock.IN_BLOCK.admit(new SqlStatement.Show("application_name"));
        TransactionBlock.IDLE.admit(new SqlStatement.Show("application_name"));
    }

    @Test
    void aTransactionHoldsOneWritingCallUntilItsEnd() {
        Transaction transaction = new Transaction();
        transaction.noteWrite("deposit");
        SqlError second = assertThrows(SqlError.class, () -> transaction.noteWrite("withdraw"));
        assertEquals("0A000", second.sqlState);
        transaction.endImplicit();
        transaction.noteWrite("withdraw"); // the implicit transaction ended: a new one may write
    }
}
