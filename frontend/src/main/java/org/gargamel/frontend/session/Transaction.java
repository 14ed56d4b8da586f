package org.gargamel.frontend.session;

import java.util.List;
import org.gargamel.frontend.sql.SqlStatement;

/**
 * A session's transaction: its block ({@link TransactionBlock}) and whether a call that writes ran in it. Each call is
 * a transaction of its own at the cluster, so a transaction (an explicit block, a query string's implicit one, or a
 * Sync cycle's) may hold one call that writes: a second is refused (0A000). The implicit transaction ends with its query
 * string or Sync ({@link #endImplicit}). Guarded by SessionProtocolTest.
 */
final class Transaction {
    static final String SEVERAL_WRITING_CALLS = "a transaction may hold one call that writes: each call is a "
            + "transaction of its own at the cluster, so several cannot commit or roll back together, and this one has "
            + "more. Send each in a transaction of its own (with the extended protocol: its own Sync, no batch), or "
            + "write one procedure that does them all; none of them ran";

    private TransactionBlock block = TransactionBlock.IDLE;
    /** A call that writes ran in the current transaction. */
    private boolean wrote;

    TransactionBlock block() {
        return block;
    }

    boolean idle() {
        return block == TransactionBlock.IDLE;
    }

    /** An error: a block fails (25P02 for what follows until COMMIT or ROLLBACK). */
    void failed() {
        block = block.afterError();
    }

    /** The end of a query string or of a Sync cycle: outside a block, its implicit transaction ends. */
    void endImplicit() {
        if (idle()) {
            wrote = false;
        }
    }

    void begin(Replies replies) {
        if (!idle()) {
            replies.notice("WARNING", "25001", "there is already a transaction in progress");
        }
        block = TransactionBlock.IN_BLOCK;
        wrote = false;
        replies.complete("BEGIN");
    }

    void commit(Replies replies) {
        if (idle()) {
            replies.notice("WARNING", "25P01", "there is no transaction in progress");
        }
        replies.complete(block.commitTag());
        end();
    }

    void rollback(Replies replies) {
        if (idle()) {
            replies.notice("WARNING", "25P01", "there is no transaction in progress");
        } else if (wrote) {
            replies.notice(
                    "WARNING",
                    "01000",
                    "the call of this transaction block committed when it ran: a call is "
                            + "a transaction of its own, which ROLLBACK cannot undo");
        }
        replies.complete("ROLLBACK");
        end();
    }

    private void end() {
        block = TransactionBlock.IDLE;
        wrote = false;
    }

    /** A call of {@code procedure} that writes is about to be sent: refused if this transaction already ran one. */
    void noteWrite(String procedure) {
        if (wrote) {
            throw new SqlError(
                    "0A000",
                    "a transaction may hold one call that writes, and this one already ran one: each call is a "
                            + "transaction of its own at the cluster, so several cannot commit or roll back together. "
                            + "Send " + procedure + " in a transaction of its own (with the extended protocol: "
                            + "its own Sync, no batch), or write one procedure that does both");
        }
        wrote = true;
    }

    /**
     * Whether a query string would run two calls that write in one transaction (its implicit one, or a block it opens),
     * counting the one this transaction already ran; {@code writes} tells which statements are calls that write.
     */
    boolean severalWritingCalls(List<SqlStatement> statements, java.util.function.Predicate<SqlStatement> writes) {
        int writing = wrote ? 1 : 0;
        for (SqlStatement statement : statements) {
            if (TransactionBlock.bounds(statement)) {
                writing = 0;
            } else if (writes.test(statement) && ++writing > 1) {
                return true;
            }
        }
        return false;
    }
}
