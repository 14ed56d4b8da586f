package org.gargamel.node.writeset;

import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.WriteSet;

/**
 * PSI: hands this node's committed write-sets to the write-set log in the order their transactions committed here
 * (docs/node.md, Ordering). Each PSI call draws a number from the replica's {@code commit_order} sequence as the last
 * thing before its COMMIT, in the same round trip; a call that read another's effects started after that one
 * committed, so it drew a higher number. Workers hand their write-sets over in any order; this releases them to the log
 * by number, each labelled with the number released before it, so the replicas apply them in that order too (even
 * if the log takes two of them the other way round). A number drawn by a call that then did not commit is
 * {@link #skip skipped}.
 */
public final class CommitOrder {
    private final LogAppender log;
    private final long incarnation;
    private final TreeMap<Long, Waiting> waiting = new TreeMap<>();
    private long next;
    private long previous = -1;

    private record Waiting(WriteSet writeSet, CompletableFuture<Void> committed) {}

    /**
     * @param incarnation tells this start of the node from earlier ones (its chain of write-sets starts afresh)
     * @param drawn       a number drawn at start: every later draw is higher (ReplicaState.drawCommitOrder)
     */
    public CommitOrder(LogAppender log, long incarnation, long drawn) {
        this.log = log;
        this.incarnation = incarnation;
        this.next = drawn + 1;
    }

    public long incarnation() {
        return incarnation;
    }

    /**
     * The transaction of {@code writeSet} committed here after drawing {@code number}. Returns a future completed when
     * its entry is committed in the log: then, and not before, its client may hear COMMITTED.
     */
    public synchronized CompletableFuture<Void> handOver(long number, WriteSet writeSet) {
        CompletableFuture<Void> committed = new CompletableFuture<>();
        put(number, new Waiting(writeSet, committed));
        return committed;
    }

    /** {@code number} was drawn by a call that did not commit: nothing comes for it. */
    public synchronized void skip(long number) {
        put(number, new Waiting(null, null));
    }

    private void put(long number, Waiting entry) {
        if (number < next || waiting.putIfAbsent(number, entry) != null) {
            throw new IllegalStateException(
                    "commit order " + number + " handed over twice (next expected: " + next + ")");
        }
        while (!waiting.isEmpty() && waiting.firstKey() == next) {
            Waiting ready = waiting.pollFirstEntry().getValue();
            if (ready.writeSet() != null) {
                WriteSet ordered = ready.writeSet().withOrder(new WriteSet.Order(incarnation, next, previous));
                previous = next;
                Futures.whenDone(
                        log.append(ordered, "the write-set of transaction " + ordered.txnId()), (done, failure) -> {
                            if (failure != null) {
                                ready.committed().completeExceptionally(failure);
                            } else {
                                ready.committed().complete(null);
                            }
                        });
            }
            next++;
        }
    }

    /** Numbers handed over but waiting for an earlier one (for tests and the log). */
    public synchronized int waiting() {
        return waiting.size();
    }
}
