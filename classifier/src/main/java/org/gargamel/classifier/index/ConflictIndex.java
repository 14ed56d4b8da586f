package org.gargamel.classifier.index;

import java.util.Arrays;
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
 */
public final class ConflictIndex {
    /** Slots below this live in an array; others (never seen with generated rules) in a map. */
    private static final int ARRAY_SLOTS = 4096;

    private static final int CACHED_DEPTHS = 64;
    private static final Node[] NO_NODES = new Node[0];
    private static final int[] NO_EPOCHS = new int[0];
    private static final long[] NO_PARTS = new long[0];
    private static final Sharers[] NO_SHARERS = new Sharers[0];

    private static final class Node {
        final Node parent;
        final long part;
        final int depth;
        /** Whether a wildcard writer may come here, so the writers below must be remembered. */
        final boolean tracksBelow;
        /** The nearest ancestor that tracks its writers below, or {@code null}. */
        final Node trackedAncestor;

        LongObjectMap<Node> children;
        /**
         * Full keys one part below, by that part: the id of their last exact writer. A full key's node could
         * hold nothing else (a wildcard writer stops above it, nothing is below it), so it is not allocated.
         * Ids rather than records: key and writer sit in one cache line, and the writer is not dereferenced.
         */
        LongLongMap leaves;
        /** The last exact writer of this node's own key when it is a full key (only for keys of no part). */
        Entry lastExact;

        Entry lastWildcard;
        /** Writers below since the last wildcard writer here: [0, belowSize), removed ones not yet dropped. */
        Entry[] below;

        int belowSize;
        /** How many writers in {@link #below} are still in the index. */
        int liveBelow;
        /** Bumped when a wildcard writer resets {@link #below}; tells removal whether its mark is still there. */
        int epoch;

        /** Its SHARED writers, if any: one field here, so that nodes of slots without increments stay small. */
        Shares shares;

        Node(Node parent, long part, int depth, boolean tracksBelow) {
            this.parent = parent;
            this.part = part;
            this.depth = depth;
            this.tracksBelow = tracksBelow;
            this.trackedAncestor = parent == null ? null : parent.tracksBelow ? parent : parent.trackedAncestor;
        }

        boolean isEmpty() {
            return children == null
                    && leaves == null
                    && lastExact == null
                    && lastWildcard == null
                    && liveBelow == 0
                    && shares == null;
        }

        Shares shares() {
            Shares own = shares;
            if (own == null) {
                shares = own = new Shares();
            }
            return own;
        }

        /** Drops {@link #shares} once nothing is left in it. */
        void releaseShares() {
            Shares own = shares;
            if (own != null && own.below == null && own.wildcards == null && own.leaves == null && own.exact == null) {
                shares = null;
            }
        }
    }

    /** A node's SHARED writers, each set since the last EXCLUSIVE writer of its place. */
    private static final class Shares {
        /** SHARED writers below since the last EXCLUSIVE wildcard writer here (only an EXCLUSIVE one wants them). */
        Sharers below;
        /** SHARED wildcard writers here since {@link Node#lastWildcard}. */
        Sharers wildcards;
        /** Per full key one part below, its SHARED writers since its last exclusive writer ({@link Node#leaves}). */
        LongObjectMap<Sharers> leaves;
        /** SHARED writers of the node's own key when it is a full key (keys of no part), since {@link Node#lastExact}. */
        Sharers exact;
    }

    /**
     * SHARED writers of one place since its last EXCLUSIVE writer: an append-only array whose removed members are
     * dropped lazily (when full), as {@link Node#below}. An EXCLUSIVE writer detaches the whole object; a removal
     * decrements {@link #live} of the object it joined, and detaches it from its place when none is left.
     */
    private static final class Sharers {
        static final int LEAF = 0;
        static final int EXACT = 1;
        static final int WILDCARD = 2;
        static final int BELOW = 3;

        /** Which field of its node holds it: one of the constants above. */
        final int place;
        /** For a {@link #LEAF}, the full key's last part. */
        final long part;

        Entry[] members = new Entry[4];
        int size;
        int live;

        Sharers(int place, long part) {
            this.place = place;
            this.part = part;
        }

        /** False if {@code entry} is its last member already (an earlier key of the same call). */
        boolean add(Entry entry) {
            int n = size;
            Entry[] array = members;
            if (n > 0 && array[n - 1] == entry) {
                return false;
            }
            if (n == array.length) {
                int kept = 0;
                for (int i = 0; i < n; i++) {
                    Entry member = array[i];
                    if (member.live) {
                        array[kept++] = member;
                    }
                }
                Arrays.fill(array, kept, n, null);
                n = kept;
                if (kept > array.length >> 1) {
                    members = array = Arrays.copyOf(array, array.length << 1);
                }
            }
            array[n] = entry;
            size = n + 1;
            live++;
            return true;
        }
    }

    /** A recorded transaction and where it is recorded, so that {@link #remove} finds it without a search. */
    private static final class Entry {
        final long txn;
        boolean live = true;
        /**
         * Exact writes in [0, exactEnd): the node above the full key, whose leaf {@code exactParts[i]} it is
         * (or, for a key of no part, the root holding it itself; a slot's keys all have one length); wildcard nodes in
         * [exactEnd, wildcardEnd); then the ancestors it is below.
         */
        Node[] nodes = NO_NODES;

        long[] exactParts = NO_PARTS;
        int exactEnd;
        int wildcardEnd;
        /** Each such ancestor's epoch when this transaction was put in its writers below. */
        int[] belowEpochs = NO_EPOCHS;
        /** The sharers it joined (as a SHARED writer); their nodes are the last {@code sharers.length} of nodes. */
        Sharers[] sharers = NO_SHARERS;

        Entry(long txn) {
            this.txn = txn;
        }
    }

    private Node[] roots = new Node[16];
    private LongObjectMap<Node> otherRoots;
    private final LongObjectMap<Entry> entries = new LongObjectMap<>(64);
    private final WildcardDepths wildcardDepths;
    /** wildcardDepths cached per [slot][depth]: 0 unknown, 1 impossible, 2 possible. */
    private byte[][] wildcardCache = new byte[16][];

    // Scratch space reused by every add (the index is single-threaded).
    /** Keys given as records, copied for {@link #add(long, WriteKeyBuffer)}. */
    private final WriteKeyBuffer listScratch = new WriteKeyBuffer();

    private long[] dependencies = new long[32];
    private int dependencyCount;
    /** Open-addressing set of the ids collected by the current add (and its own), for deduplication. */
    private long[] collected = emptySet(64);

    private int[] collectedSlots = new int[32];
    private int collectedCount;
    private Node[] exactScratch = new Node[32];
    private long[] exactPartScratch = new long[32];
    private int exactCount;
    private Node[] wildcardScratch = new Node[8];
    private int wildcardCount;
    private Node[] belowScratch = new Node[32];
    private int[] epochScratch = new int[32];
    private int belowCount;
    private Node[] sharedNodeScratch = new Node[8];
    private Sharers[] sharersScratch = new Sharers[8];
    private int sharedCount;
    /** The slot {@link #newChild} creates a node in (saves a capturing lambda per lookup). */
    private int childSlot;
    /** Written by {@link #touchLeaves} so that its loads are not optimised away; never read. */
    @SuppressWarnings("unused")
    private long touched;

    private final LongObjectMap.Factory<Node, Node> newChild =
            (parent, part) -> new Node(parent, part, parent.depth + 1, wildcardPossible(childSlot, parent.depth + 1));

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
        this.wildcardDepths = wildcardDepths;
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
        dependencyCount = 0;
        remember(txn); // never its own dependency
        touchLeaves(keys);
        exactCount = 0;
        wildcardCount = 0;
        belowCount = 0;
        sharedCount = 0;
        for (int k = 0, n = keys.size(); k < n; k++) {
            if (keys.shared(k)) {
                addShared(entry, keys, k); // apart, so that the loop of EXCLUSIVE keys stays as small as it was
                continue;
            }
            int slot = keys.slot(k);
            int length = keys.length(k);
            int known = keys.knownParts(k);
            Node node = root(slot);
            // Walk the known parts, collecting the last wildcard writer (and the SHARED ones since) at every prefix on
            // the way; a full key stops one part short, at the node holding it as a leaf (no wildcard writer there).
            int walk = known == length && known > 0 ? known - 1 : known;
            for (int depth = 0; depth < walk; depth++) {
                collect(node.lastWildcard);
                if (node.shares != null) {
                    collectSharedWildcards(node);
                }
                node = child(node, keys.part(k, depth), slot);
            }
            collect(node.lastWildcard);
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
                        collect(lastWriter);
                    }
                    if (node.shares != null) {
                        takeOverSharedLeaf(node, part);
                    }
                    above = node; // the leaf's ancestors start at its parent
                } else {
                    part = 0;
                    collect(node.lastExact);
                    node.lastExact = entry;
                    if (node.shares != null) {
                        takeOverSharedExact(node);
                    }
                    above = node.parent;
                }
                if (exactCount == exactPartScratch.length) {
                    exactPartScratch = Arrays.copyOf(exactPartScratch, exactCount * 2);
                }
                exactPartScratch[exactCount] = part;
                exactScratch = push(exactScratch, exactCount++, node);
            } else {
                Entry[] below = node.below;
                for (int i = 0, size = node.belowSize; i < size; i++) {
                    Entry writer = below[i];
                    if (writer.live) {
                        collect(writer.txn);
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
                wildcardScratch = push(wildcardScratch, wildcardCount++, node);
                above = node.parent;
            }
            Node first = above == null || above.tracksBelow ? above : above.trackedAncestor;
            for (Node ancestor = first; ancestor != null; ancestor = ancestor.trackedAncestor) {
                int size = ancestor.belowSize;
                if (size > 0 && ancestor.below[size - 1] == entry) {
                    continue; // already below it (an earlier key of this call)
                }
                appendBelow(ancestor, entry);
                belowScratch = push(belowScratch, belowCount, ancestor);
                if (belowCount == epochScratch.length) {
                    epochScratch = Arrays.copyOf(epochScratch, belowCount * 2);
                }
                epochScratch[belowCount++] = ancestor.epoch;
            }
        }
        int exclusive = exactCount + wildcardCount + belowCount;
        int total = exclusive + sharedCount;
        Node[] nodes = total == 0 ? NO_NODES : new Node[total];
        System.arraycopy(exactScratch, 0, nodes, 0, exactCount);
        System.arraycopy(wildcardScratch, 0, nodes, exactCount, wildcardCount);
        System.arraycopy(belowScratch, 0, nodes, exactCount + wildcardCount, belowCount);
        Arrays.fill(exactScratch, 0, exactCount, null);
        Arrays.fill(wildcardScratch, 0, wildcardCount, null);
        Arrays.fill(belowScratch, 0, belowCount, null);
        if (sharedCount > 0) {
            System.arraycopy(sharedNodeScratch, 0, nodes, exclusive, sharedCount);
            entry.sharers = Arrays.copyOf(sharersScratch, sharedCount);
            Arrays.fill(sharedNodeScratch, 0, sharedCount, null);
            Arrays.fill(sharersScratch, 0, sharedCount, null);
        }
        entry.nodes = nodes;
        entry.exactParts = exactCount == 0 ? NO_PARTS : Arrays.copyOf(exactPartScratch, exactCount);
        entry.exactEnd = exactCount;
        entry.wildcardEnd = exactCount + wildcardCount;
        entry.belowEpochs = belowCount == 0 ? NO_EPOCHS : Arrays.copyOf(epochScratch, belowCount);
        for (int i = 0; i < collectedCount; i++) {
            collected[collectedSlots[i]] = LongLongMap.ABSENT;
        }
        collectedCount = 0;
        return Arrays.copyOf(dependencies, dependencyCount);
    }

    /** An EXCLUSIVE writer at or below {@code node} depends on its SHARED wildcard writers (since the last one). */
    private void collectSharedWildcards(Node node) {
        Sharers wildcards = node.shares.wildcards;
        if (wildcards != null) {
            collectAll(wildcards);
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
            collectAll(sharers);
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
            collectAll(shares.exact);
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
            collectAll(shares.below);
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
        Node node = root(slot);
        int walk = known == length && known > 0 ? known - 1 : known;
        for (int depth = 0; depth < walk; depth++) {
            collect(node.lastWildcard);
            node = child(node, keys.part(k, depth), slot);
        }
        collect(node.lastWildcard);
        Node above;
        if (known == length) {
            addSharedExact(entry, node, keys, k, known);
            above = known > 0 ? node : node.parent;
        } else {
            Entry[] below = node.below;
            for (int i = 0, size = node.belowSize; i < size; i++) {
                Entry writer = below[i];
                if (writer.live) {
                    collect(writer.txn);
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
                    collect(lastWriter);
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
            collect(node.lastExact);
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
            sharedNodeScratch = push(sharedNodeScratch, sharedCount, node);
            if (sharedCount == sharersScratch.length) {
                sharersScratch = Arrays.copyOf(sharersScratch, sharedCount * 2);
            }
            sharersScratch[sharedCount++] = sharers;
        }
    }

    private void collectAll(Sharers sharers) {
        Entry[] members = sharers.members;
        for (int i = 0, size = sharers.size; i < size; i++) {
            Entry member = members[i];
            if (member.live) {
                collect(member.txn);
            }
        }
    }

    /**
     * Reads the home slot of every full key's leaf before any is updated: the loads are independent, so their
     * cache misses (the stock leaves of a large New-Order) overlap instead of being paid one key at a time by the
     * insert loop, whose every step waits for its probe. Walks only nodes that exist (creates nothing).
     */
    private void touchLeaves(WriteKeyBuffer keys) {
        long touched = 0;
        for (int k = 0, n = keys.size(); k < n; k++) {
            int known = keys.knownParts(k);
            if (known != keys.length(k) || known == 0) {
                continue;
            }
            int slot = keys.slot(k);
            Node node = slot >= 0 && slot < roots.length ? roots[slot] : null;
            for (int depth = 0; node != null && depth < known - 1; depth++) {
                LongObjectMap<Node> children = node.children;
                node = children == null ? null : children.get(keys.part(k, depth));
            }
            if (node != null && node.leaves != null) {
                touched ^= node.leaves.peek(keys.part(k, known - 1));
            }
        }
        this.touched = touched;
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
            prune(node);
        }
        for (; i < entry.wildcardEnd; i++) {
            Node node = nodes[i];
            if (node.lastWildcard == entry) {
                node.lastWildcard = null;
            }
            prune(node);
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
            prune(node);
        }
        for (int j = 0; i < nodes.length; i++, j++) {
            Node node = nodes[i];
            Sharers joined = sharers[j];
            if (--joined.live == 0) {
                detach(node, joined);
            }
            prune(node);
        }
        // A removed entry may linger in writers-below arrays until they are compacted; let go of the trie.
        entry.nodes = NO_NODES;
        entry.exactParts = NO_PARTS;
        entry.belowEpochs = NO_EPOCHS;
        entry.sharers = NO_SHARERS;
    }

    /** Lets go of sharers none of which is left, unless an EXCLUSIVE writer already did. */
    private static void detach(Node node, Sharers sharers) {
        Shares shares = node.shares;
        if (shares == null) {
            return;
        }
        switch (sharers.place) {
            case Sharers.LEAF -> {
                LongObjectMap<Sharers> leaves = shares.leaves;
                if (leaves != null && leaves.removeIfSame(sharers.part, sharers) && leaves.isEmpty()) {
                    shares.leaves = null;
                }
            }
            case Sharers.EXACT -> {
                if (shares.exact == sharers) {
                    shares.exact = null;
                }
            }
            case Sharers.WILDCARD -> {
                if (shares.wildcards == sharers) {
                    shares.wildcards = null;
                }
            }
            default -> {
                if (shares.below == sharers) {
                    shares.below = null;
                }
            }
        }
        node.releaseShares();
    }

    /** Transactions currently recorded. */
    public int size() {
        return entries.size();
    }

    /** Trie nodes currently allocated (for tests and the memory benchmark). */
    public int nodeCount() {
        int[] count = {0};
        for (Node root : roots) {
            if (root != null) {
                count[0] += count(root);
            }
        }
        if (otherRoots != null) {
            otherRoots.forEachValue(root -> count[0] += count(root));
        }
        return count[0];
    }

    private static int count(Node node) {
        int[] count = {1 + (node.leaves == null ? 0 : node.leaves.size())}; // a leaf is a node not allocated
        if (node.shares != null && node.shares.leaves != null) {
            LongLongMap leaves = node.leaves;
            node.shares.leaves.forEachValue(sharers -> {
                if (leaves == null || leaves.get(sharers.part) == LongLongMap.ABSENT) {
                    count[0]++; // a leaf that only SHARED writers hold
                }
            });
        }
        if (node.children != null) {
            node.children.forEachValue(child -> count[0] += count(child));
        }
        return count[0];
    }

    private void collect(Entry writer) {
        if (writer != null) {
            collect(writer.txn);
        }
    }

    /** Adds {@code txn} to the current call's dependencies unless it is there already (or is the call). */
    private void collect(long txn) {
        if (remember(txn)) {
            if (dependencyCount == dependencies.length) {
                dependencies = Arrays.copyOf(dependencies, dependencyCount * 2);
            }
            dependencies[dependencyCount++] = txn;
        }
    }

    /** Puts {@code txn} in the set of ids seen by the current add; false if it was there. */
    private boolean remember(long txn) {
        if (collectedCount * 2 >= collected.length) {
            growCollected();
        }
        long[] set = collected;
        int mask = set.length - 1;
        int i = (int) ((txn * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        for (long current; (current = set[i]) != LongLongMap.ABSENT; i = (i + 1) & mask) {
            if (current == txn) {
                return false;
            }
        }
        set[i] = txn;
        if (collectedCount == collectedSlots.length) {
            collectedSlots = Arrays.copyOf(collectedSlots, collectedCount * 2);
        }
        collectedSlots[collectedCount++] = i;
        return true;
    }

    /** Doubles the id set, re-inserting what the current add has seen (a Delivery collects ~100). */
    private void growCollected() {
        long[] seen = new long[collectedCount];
        for (int i = 0; i < collectedCount; i++) {
            seen[i] = collected[collectedSlots[i]];
        }
        collected = emptySet(collected.length * 2);
        collectedCount = 0;
        for (long txn : seen) {
            remember(txn);
        }
    }

    private static long[] emptySet(int capacity) {
        long[] set = new long[capacity];
        Arrays.fill(set, LongLongMap.ABSENT);
        return set;
    }

    private static Node[] push(Node[] array, int index, Node node) {
        if (index == array.length) {
            array = Arrays.copyOf(array, index * 2);
        }
        array[index] = node;
        return array;
    }

    /** Appends a writer below {@code node}; a full array first drops its removed writers, then grows. */
    private static void appendBelow(Node node, Entry writer) {
        Entry[] below = node.below;
        int size = node.belowSize;
        if (below == null) {
            node.below = below = new Entry[4];
        } else if (size == below.length) {
            int live = 0;
            for (int i = 0; i < size; i++) {
                Entry other = below[i];
                if (other.live) {
                    below[live++] = other;
                }
            }
            Arrays.fill(below, live, size, null);
            size = live;
            if (live > below.length >> 1) {
                node.below = below = Arrays.copyOf(below, below.length << 1);
            }
        }
        below[size] = writer;
        node.belowSize = size + 1;
        node.liveBelow++;
    }

    private Node root(int slot) {
        if (slot >= 0 && slot < ARRAY_SLOTS) {
            if (slot >= roots.length) {
                roots = Arrays.copyOf(roots, Math.max(slot + 1, roots.length * 2));
            }
            Node root = roots[slot];
            if (root == null) {
                roots[slot] = root = new Node(null, 0, 0, wildcardPossible(slot, 0));
            }
            return root;
        }
        if (otherRoots == null) {
            otherRoots = new LongObjectMap<>();
        }
        Node root = otherRoots.get(slot);
        if (root == null) {
            root = new Node(null, 0, 0, wildcardPossible(slot, 0));
            otherRoots.put(slot, root);
        }
        return root;
    }

    private Node child(Node node, long part, int slot) {
        LongObjectMap<Node> children = node.children;
        if (children == null) {
            node.children = children = new LongObjectMap<>();
        }
        childSlot = slot;
        return children.computeIfAbsent(part, node, newChild);
    }

    /** {@link WildcardDepths#possible}, asked once per slot and depth (it may box and hash). */
    private boolean wildcardPossible(int slot, int depth) {
        if (slot < 0 || slot >= ARRAY_SLOTS || depth >= CACHED_DEPTHS) {
            return wildcardDepths.possible(slot, depth);
        }
        if (slot >= wildcardCache.length) {
            wildcardCache = Arrays.copyOf(wildcardCache, Math.max(slot + 1, wildcardCache.length * 2));
        }
        byte[] depths = wildcardCache[slot];
        if (depths == null) {
            wildcardCache[slot] = depths = new byte[CACHED_DEPTHS];
        }
        if (depths[depth] == 0) {
            depths[depth] = (byte) (wildcardDepths.possible(slot, depth) ? 2 : 1);
        }
        return depths[depth] == 2;
    }

    private static void prune(Node node) {
        while (node.parent != null && node.isEmpty()) {
            Node parent = node.parent;
            LongObjectMap<Node> siblings = parent.children;
            if (siblings != null && siblings.removeIfSame(node.part, node)) {
                if (siblings.isEmpty()) {
                    parent.children = null;
                }
            }
            node = parent;
        }
    }
}
