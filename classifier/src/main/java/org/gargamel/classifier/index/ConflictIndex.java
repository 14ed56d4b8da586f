package org.gargamel.classifier.index;

import java.util.List;
import org.gargamel.classifier.WriteKey;
import org.gargamel.classifier.WriteKeyBuffer;

/**
 * Finds a call's back-dependencies — the last scheduled transactions that wrote what it may write — like
 * a lock table, in time proportional to the call's keys rather than to the transactions in flight
 * (DESIGN.md §3, "Finding back-dependencies fast").
 *
 * <p>One trie per conflict slot, one level per key part. An exact writer of key K depends on the last
 * writer of K and on the last wildcard writer at each prefix of K. A wildcard writer at prefix P depends
 * on the last wildcard writer at P and at each prefix of P, and on every writer below P since that last
 * wildcard writer (the set then resets to it). Every edge joins two conflicting transactions and every
 * conflicting pair is ordered through the edges, so the ordering equals that of the thesis's Algorithm 1
 * (a test compares them on random workloads).
 *
 * <p>A call's declared reads reach the index as keys too ({@link org.gargamel.classifier.ClassifierRules#conflictKeys})
 * and are recorded like writes: a read then depends on the last writer of its cells and the next writer depends on
 * it, and two reads of one cell are ordered as well (a sound simplification: shared reads would need a second kind
 * of entry, left to the serializable mode).
 *
 * <p>A SHARED key (an increment: two of them commute, {@link WriteKey}) is kept like a read lock: a SHARED writer
 * depends on the last EXCLUSIVE writer of its key and the EXCLUSIVE wildcard writers at its prefixes (a SHARED
 * wildcard writer at P also on the EXCLUSIVE writers below P since the last EXCLUSIVE wildcard writer at P), never
 * on another SHARED writer, and it does not become the last writer: it joins the key's sharers since the last
 * EXCLUSIVE writer. An EXCLUSIVE writer depends on the last EXCLUSIVE writer and on every sharer since it (at its
 * key, and at its prefixes for SHARED wildcard writers; below P, shared or not, for an EXCLUSIVE wildcard writer at
 * P), then becomes the last writer and resets the sharers.
 *
 * <p>{@link #remove} forgets a transaction once every replica has applied it; nodes left empty are
 * dropped, so memory follows what is in flight. Not thread-safe: the scheduler's event loop owns it.
 *
 * <p>Layout, for speed (the scheduler calls it once per transaction, p99 target 2 µs): children and the
 * transactions are kept in primitive long-keyed maps (no boxing); full keys, the most numerous, map to
 * their last writer's id in a {@link LongLongMap} (key and id in one cache line, no record to follow);
 * elsewhere nodes point at {@link Entry} records, so a removed transaction is recognised by a flag; the
 * writers below a node are an append-only array from which removed writers are dropped lazily (when the
 * array is full, or all at once when none is left); dependencies are deduplicated in a small reused id set.
 *
 * <p>The parts, each a package-private final class of its own: the trie ({@link SlotTries} of {@link Node}s), a
 * recorded transaction ({@link Entry}) and where it is recorded ({@link EntryPlaces}), a node's SHARED writers
 * ({@link Shares}, {@link Sharers}), and the dependencies of one add ({@link DependencySet}). This class holds the
 * rules above: what a key depends on, and what its writer becomes.
 */
public final class ConflictIndex {
    private final LongObjectMap<Entry> entries = new LongObjectMap<>(64);
    private final SlotTries tries;
    // Scratch space reused by every add (the index is single-threaded).
    private final DependencySet dependencies = new DependencySet();
    private final EntryPlaces places = new EntryPlaces();
    /** Keys given as records, copied for {@link #add(long, WriteKeyBuffer)}. */
    private final WriteKeyBuffer listScratch = new WriteKeyBuffer();

    /**
     * Which prefix lengths of a slot can see a wildcard writer. Only there must the writers below a node be
     * remembered (a wildcard writer at that prefix depends on them); elsewhere that bookkeeping is skipped.
     */
    @FunctionalInterface
    public interface WildcardDepths {
        boolean possible(int slot, int depth);

        WildcardDepths ANY = (slot, depth) -> true;
    }

    /** An index that assumes a wildcard writer may come at any prefix (for tests and generic use). */
    public ConflictIndex() {
        this(WildcardDepths.ANY);
    }

    /** An index for rules whose possible wildcard prefixes are known, e.g. {@code rules::wildcardPossible}. */
    public ConflictIndex(WildcardDepths wildcardDepths) {
        this.tries = new SlotTries(wildcardDepths);
    }

    /** {@link #add(long, WriteKeyBuffer)} for keys as records (tests, tools; the scheduler passes a buffer). */
    public long[] add(long txn, List<WriteKey> keys) {
        WriteKeyBuffer buffer = listScratch;
        buffer.clear();
        for (WriteKey key : keys) {
            buffer.add(key.slot(), key.parts(), key.knownParts(), key.shared());
        }
        return add(txn, buffer);
    }

    /**
     * Records transaction {@code txn} as the newest writer of {@code keys} and returns its back-dependencies
     * (distinct, in no particular order, never {@code txn} itself).
     */
    public long[] add(long txn, WriteKeyBuffer keys) {
        if (txn == Long.MIN_VALUE) {
            throw new IllegalArgumentException("transaction id " + txn + " is reserved");
        }
        Entry entry = new Entry(txn);
        Entry previous = entries.put(txn, entry); // one probe of a large, cold table instead of two
        if (previous != null) {
            entries.put(txn, previous);
            throw new IllegalStateException("transaction " + txn + " is already in the conflict index");
        }
        DependencySet dependencies = this.dependencies;
        dependencies.begin(txn); // never its own dependency
        tries.touchLeaves(keys);
        EntryPlaces places = this.places;
        places.clear();
        for (int k = 0, n = keys.size(); k < n; k++) {
            if (keys.shared(k)) {
                addShared(entry, keys, k); // apart, so that the loop of EXCLUSIVE keys stays as small as it was
                continue;
            }
            int slot = keys.slot(k);
            int length = keys.length(k);
            int known = keys.knownParts(k);
            Node node = tries.root(slot);
            // Walk the known parts, collecting the last wildcard writer (and the SHARED ones since) at every prefix on
            // the way; a full key stops one part short, at the node holding it as a leaf (no wildcard writer there).
            int walk = known == length && known > 0 ? known - 1 : known;
            for (int depth = 0; depth < walk; depth++) {
                dependencies.add(node.lastWildcard);
                if (node.shares != null) {
                    collectSharedWildcards(node);
                }
                node = tries.child(node, keys.part(k, depth), slot);
            }
            dependencies.add(node.lastWildcard);
            if (node.shares != null) {
                collectSharedWildcards(node);
            }
            Node above;
            if (known == length) {
                long part;
                if (known > 0) {
                    part = keys.part(k, known - 1);
                    LongLongMap leaves = node.leaves;
                    if (leaves == null) {
                        node.leaves = leaves = new LongLongMap();
                    }
                    long lastWriter = leaves.put(part, txn);
                    if (lastWriter != LongLongMap.ABSENT) {
                        dependencies.add(lastWriter);
                    }
                    if (node.shares != null) {
                        takeOverSharedLeaf(node, part);
                    }
                    above = node; // the leaf's ancestors start at its parent
                } else {
                    part = 0;
                    dependencies.add(node.lastExact);
                    node.lastExact = entry;
                    if (node.shares != null) {
                        takeOverSharedExact(node);
                    }
                    above = node.parent;
                }
                places.exact(node, part);
            } else {
                Entry[] below = node.below;
                for (int i = 0, size = node.belowSize; i < size; i++) {
                    Entry writer = below[i];
                    if (writer.live) {
                        dependencies.add(writer.txn);
                    }
                    below[i] = null;
                }
                node.belowSize = 0;
                node.liveBelow = 0;
                node.epoch++;
                if (node.shares != null) {
                    takeOverSharedBelow(node);
                }
                node.lastWildcard = entry;
                places.wildcard(node);
                above = node.parent;
            }
            Node first = above == null || above.tracksBelow ? above : above.trackedAncestor;
            for (Node ancestor = first; ancestor != null; ancestor = ancestor.trackedAncestor) {
                int size = ancestor.belowSize;
                if (size > 0 && ancestor.below[size - 1] == entry) {
                    continue; // already below it (an earlier key of this call)
                }
                ancestor.appendBelow(entry);
                places.below(ancestor, ancestor.epoch);
            }
        }
        places.recordIn(entry);
        return dependencies.finish();
    }

    /** An EXCLUSIVE writer at or below {@code node} depends on its SHARED wildcard writers (since the last one). */
    private void collectSharedWildcards(Node node) {
        Sharers wildcards = node.shares.wildcards;
        if (wildcards != null) {
            dependencies.addLive(wildcards);
        }
    }

    /** An EXCLUSIVE writer of full key {@code part} below {@code node} takes over from its SHARED writers. */
    private void takeOverSharedLeaf(Node node, long part) {
        Shares shares = node.shares;
        LongObjectMap<Sharers> leaves = shares.leaves;
        if (leaves == null) {
            return;
        }
        Sharers sharers = leaves.get(part);
        if (sharers != null) {
            dependencies.addLive(sharers);
            leaves.removeIfSame(part, sharers);
            if (leaves.isEmpty()) {
                shares.leaves = null;
                node.releaseShares();
            }
        }
    }

    /** An EXCLUSIVE writer of {@code node}'s own key (of no part) takes over from its SHARED writers. */
    private void takeOverSharedExact(Node node) {
        Shares shares = node.shares;
        if (shares.exact != null) {
            dependencies.addLive(shares.exact);
            shares.exact = null;
            node.releaseShares();
        }
    }

    /**
     * An EXCLUSIVE wildcard writer at {@code node} takes over from the SHARED writers below it and the SHARED wildcard
     * writers there (collected on the way).
     */
    private void takeOverSharedBelow(Node node) {
        Shares shares = node.shares;
        if (shares.below != null) {
            dependencies.addLive(shares.below);
            shares.below = null;
        }
        shares.wildcards = null;
        node.releaseShares();
    }

    /**
     * A SHARED key: depends on the last EXCLUSIVE wildcard writer at each prefix; a full key on its last EXCLUSIVE
     * writer, a wildcard at P on the EXCLUSIVE writers below P (kept: the next SHARED one needs them too). Joins the
     * sharers of its key or prefix, and the SHARED writers below each tracked ancestor.
     */
    private void addShared(Entry entry, WriteKeyBuffer keys, int k) {
        int slot = keys.slot(k);
        int length = keys.length(k);
        int known = keys.knownParts(k);
        Node node = tries.root(slot);
        int walk = known == length && known > 0 ? known - 1 : known;
        for (int depth = 0; depth < walk; depth++) {
            dependencies.add(node.lastWildcard);
            node = tries.child(node, keys.part(k, depth), slot);
        }
        dependencies.add(node.lastWildcard);
        Node above;
        if (known == length) {
            addSharedExact(entry, node, keys, k, known);
            above = known > 0 ? node : node.parent;
        } else {
            Entry[] below = node.below;
            for (int i = 0, size = node.belowSize; i < size; i++) {
                Entry writer = below[i];
                if (writer.live) {
                    dependencies.add(writer.txn);
                }
            }
            Shares shares = node.shares();
            Sharers sharers = shares.wildcards;
            if (sharers == null) {
                shares.wildcards = sharers = new Sharers(Sharers.WILDCARD, 0);
            }
            joinSharers(entry, node, sharers);
            above = node.parent;
        }
        Node first = above == null || above.tracksBelow ? above : above.trackedAncestor;
        for (Node ancestor = first; ancestor != null; ancestor = ancestor.trackedAncestor) {
            Shares shares = ancestor.shares();
            Sharers sharers = shares.below;
            if (sharers == null) {
                shares.below = sharers = new Sharers(Sharers.BELOW, 0);
            }
            joinSharers(entry, ancestor, sharers);
        }
    }

    /** A SHARED writer of full key {@code k}: depends on its last EXCLUSIVE writer, joins its sharers. */
    private void addSharedExact(Entry entry, Node node, WriteKeyBuffer keys, int k, int known) {
        Sharers sharers;
        if (known > 0) {
            long part = keys.part(k, known - 1);
            LongLongMap leaves = node.leaves;
            if (leaves != null) {
                long lastWriter = leaves.get(part);
                if (lastWriter != LongLongMap.ABSENT) {
                    dependencies.add(lastWriter);
                }
            }
            Shares shares = node.shares();
            LongObjectMap<Sharers> sharedLeaves = shares.leaves;
            if (sharedLeaves == null) {
                shares.leaves = sharedLeaves = new LongObjectMap<>();
            }
            sharers = sharedLeaves.get(part);
            if (sharers == null) {
                sharers = new Sharers(Sharers.LEAF, part);
                sharedLeaves.put(part, sharers);
            }
        } else {
            dependencies.add(node.lastExact);
            Shares shares = node.shares();
            sharers = shares.exact;
            if (sharers == null) {
                shares.exact = sharers = new Sharers(Sharers.EXACT, 0);
            }
        }
        joinSharers(entry, node, sharers);
    }

    private void joinSharers(Entry entry, Node node, Sharers sharers) {
        if (sharers.add(entry)) {
            places.shared(node, sharers);
        }
    }

    /**
     * Forgets {@code txn} (globally done); unknown ids are ignored, so a repeated report is harmless.
     * Removal must follow dependencies: a transaction is removed only after its back-dependencies, which
     * holds for "applied at every replica" because a replica applies a write-set only after those of its
     * back-dependencies. Removing out of that order could hide a conflict with a still-recorded ancestor.
     */
    public void remove(long txn) {
        Entry entry = entries.remove(txn);
        if (entry == null) {
            return;
        }
        entry.live = false;
        Node[] nodes = entry.nodes;
        int i = 0;
        long[] exactParts = entry.exactParts;
        for (; i < entry.exactEnd; i++) {
            Node node = nodes[i];
            long part = exactParts[i];
            LongLongMap leaves = node.leaves;
            if (node.lastExact == entry) {
                node.lastExact = null;
            } else if (leaves != null && leaves.removeIfSame(part, txn) && leaves.isEmpty()) {
                node.leaves = null;
            }
            node.prune();
        }
        for (; i < entry.wildcardEnd; i++) {
            Node node = nodes[i];
            if (node.lastWildcard == entry) {
                node.lastWildcard = null;
            }
            node.prune();
        }
        int[] epochs = entry.belowEpochs;
        Sharers[] sharers = entry.sharers;
        int belowEnd = nodes.length - sharers.length;
        for (int b = 0; i < belowEnd; i++, b++) {
            Node node = nodes[i];
            if (node.epoch == epochs[b] && --node.liveBelow == 0) {
                node.below = null; // only removed writers left: drop them all at once
                node.belowSize = 0;
            }
            node.prune();
        }
        for (int j = 0; i < nodes.length; i++, j++) {
            Node node = nodes[i];
            Sharers joined = sharers[j];
            if (--joined.live == 0) {
                node.detach(joined);
            }
            node.prune();
        }
        entry.release();
    }

    /** Transactions currently recorded. */
    public int size() {
        return entries.size();
    }

    /** Trie nodes currently allocated (for tests and the memory benchmark). */
    public int nodeCount() {
        return tries.nodeCount();
    }
}
