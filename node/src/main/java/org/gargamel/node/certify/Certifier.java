package org.gargamel.node.certify;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.gargamel.common.wire.WriteSet;

/**
 * The round-robin baseline's certifier (the thesis's §6.3.1, GTSN): write-sets are certified in delivery (total)
 * order, identically at every node; a write-set loses when a write-set certified after its transaction's snapshot
 * wrote one of its rows. Winners are numbered 1, 2, ...; a transaction's snapshot is how many winners its node had
 * committed when it started. Only the last {@value #WINDOW} winners are remembered; a transaction older than that
 * loses conservatively. Used by one thread, the node's applier.
 */
public final class Certifier {
    static final int WINDOW = 100_000;

    private record Winner(long number, Set<String> rows) {}

    private final PrimaryKeys keys;
    private final ArrayDeque<Winner> recent = new ArrayDeque<>();
    private long winners;

    public Certifier(PrimaryKeys keys) {
        this.keys = keys;
    }

    /** Decides {@code writeSet}; a winner with rows is numbered and remembered. */
    public boolean certify(WriteSet writeSet) {
        Set<String> rows = rows(writeSet.changes());
        if (rows.isEmpty()) {
            return true;
        }
        if (!recent.isEmpty() && writeSet.snapshot() < recent.peekFirst().number() - 1) {
            return false;
        }
        Iterator<Winner> newestFirst = recent.descendingIterator();
        while (newestFirst.hasNext()) {
            Winner winner = newestFirst.next();
            if (winner.number() <= writeSet.snapshot()) {
                break;
            }
            for (String row : rows) {
                if (winner.rows().contains(row)) {
                    return false;
                }
            }
        }
        recent.addLast(new Winner(++winners, rows));
        if (recent.size() > WINDOW) {
            recent.removeFirst();
        }
        return true;
    }

    /** Whether the write-set has rows to certify (empty ones are not numbered). */
    public boolean numbered(WriteSet writeSet) {
        return !rows(writeSet.changes()).isEmpty();
    }

    public Set<String> rows(List<WriteSet.RowChange> changes) {
        Set<String> rows = new HashSet<>();
        for (WriteSet.RowChange change : changes) {
            String row = keys.rowKey(change);
            if (row != null) {
                rows.add(row);
            }
        }
        return rows;
    }
}
