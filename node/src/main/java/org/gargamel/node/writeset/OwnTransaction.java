package org.gargamel.node.writeset;

import java.util.Collections;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One local update transaction waiting for its write-set's delivery: the {@link Decision} and, back to the apply loop,
 * that the worker has finished with it. In round-robin mode the
 * apply loop may <em>doom</em> it while it waits: a write-set delivered earlier won certification and needs a row this
 * transaction holds, so this one will lose too and must release its locks at once.
 */
public final class OwnTransaction {
    /** What the log decided for a waiting transaction. */
    public enum Decision {
        /** Its write-set is delivered (and, in round-robin mode, certified): commit it. */
        COMMIT,
        /** Round-robin: an earlier write-set won certification; roll back and run the call again. */
        LOSE,
        /**
         * The log settled it as abandoned before its write-set came (this node was taken for departed): roll back and
         * give the client no outcome; the scheduler runs the call again elsewhere.
         */
        ABANDONED
    }

    private final CompletableFuture<Decision> decision = new CompletableFuture<>();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Set<String> rows;
    private volatile boolean doomed;

    OwnTransaction(Set<String> rows) {
        this.rows = rows;
    }

    void decide(Decision decided) {
        decision.complete(decided);
    }

    void doomIfTouches(Set<String> held) {
        if (!Collections.disjoint(rows, held)) {
            doomed = true;
        }
    }

    void awaitFinished() throws InterruptedException {
        finished.await();
    }

    /** The worker is done with the transaction (committed or rolled back): the apply loop may go on. */
    public void finished() {
        finished.countDown();
    }

    /** Waits for the decision. */
    public Decision awaitDecision() throws InterruptedException {
        try {
            return decision.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the decision of an own transaction failed", e.getCause());
        }
    }

    /**
     * Waits for the decision, calling {@code release} once (to roll back and free the rows) if the transaction is
     * doomed first; a doomed transaction never commits, but its decision is still awaited.
     */
    public Decision awaitDecision(Releaser release) throws InterruptedException, java.sql.SQLException {
        while (true) {
            try {
                return decision.get(20, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (doomed) {
                    release.release();
                    Decision decided = awaitDecision();
                    return decided == Decision.ABANDONED ? decided : Decision.LOSE;
                }
            } catch (ExecutionException e) {
                throw new IllegalStateException("the decision of an own transaction failed", e.getCause());
            }
        }
    }

    /** Releases a doomed transaction's locks. */
    @FunctionalInterface
    public interface Releaser {
        void release() throws java.sql.SQLException;
    }
}
