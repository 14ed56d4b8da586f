package org.gargamel.frontend.session;

import org.gargamel.frontend.sql.SqlStatement;

/**
 * Where a session stands in a transaction block (PostgreSQL's ReadyForQuery status): idle, in a block opened by BEGIN,
 * or in a block that failed, where every statement but COMMIT and ROLLBACK is refused with 25P02 until the block ends.
 * Guarded by TransactionBlockTest and SessionProtocolTest.
 */
enum TransactionBlock {
    IDLE('I'),
    IN_BLOCK('T'),
    FAILED('E');

    private final char status;

    TransactionBlock(char status) {
        this.status = status;
    }

    /** The ReadyForQuery status byte: 'I', 'T' or 'E'. */
    char status() {
        return status;
    }

    /** After an error: a block fails; outside a block nothing stays of it. */
    TransactionBlock afterError() {
        return this == IN_BLOCK ? FAILED : this;
    }

    /** The tag COMMIT answers with: a failed block is rolled back. */
    String commitTag() {
        return this == FAILED ? "ROLLBACK" : "COMMIT";
    }

    /** Refuses {@code statement} with 25P02 in a failed block, unless it ends the block (COMMIT or ROLLBACK). */
    void admit(SqlStatement statement) {
        if (this == FAILED
                && !(statement instanceof SqlStatement.Commit || statement instanceof SqlStatement.Rollback)) {
            throw new SqlError(
                    "25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
    }

    /** Whether {@code statement} opens or ends a block (and with it the one call that writes it may hold). */
    static boolean bounds(SqlStatement statement) {
        return statement instanceof SqlStatement.Begin
                || statement instanceof SqlStatement.Commit
                || statement instanceof SqlStatement.Rollback;
    }
}
