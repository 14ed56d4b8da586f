package org.gargamel.classifier.index;

import java.util.Arrays;

/**
 * One prefix of a slot's keys in {@link ConflictIndex}'s trie, with the writers recorded there.
 *
 * <p>Invariants (guarded by {@code ConflictIndexDifferentialTest} against {@code ReferenceConflictIndex}): a node is
 * in its parent's {@link #children} only while it is not {@link #isEmpty() empty} ({@link #prune}); {@link #below}
 * holds in {@code [0, belowSize)} every writer below this node since {@link #lastWildcard}, removed ones not yet
 * dropped, and {@link #liveBelow} counts those still in the index; {@link #epoch} changes exactly when a wildcard
 * writer resets {@link #below}. {@link #tracksBelow} is fixed when the node is created.
 */
final class Node {
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

    /** Appends a writer below this node; a full array first drops its removed writers, then grows. */
    void appendBelow(Entry writer) {
        Entry[] array = below;
        int size = belowSize;
        if (array == null) {
            below = array = new Entry[4];
        } else if (size == array.length) {
            int live = 0;
            for (int i = 0; i < size; i++) {
                Entry other = array[i];
                if (other.live) {
                    array[live++] = other;
                }
            }
            Arrays.fill(array, live, size, null);
            size = live;
            if (live > array.length >> 1) {
                below = array = Arrays.copyOf(array, array.length << 1);
            }
        }
        array[size] = writer;
        belowSize = size + 1;
        liveBelow++;
    }

    /** Lets go of sharers none of which is left, unless an EXCLUSIVE writer already did. */
    void detach(Sharers sharers) {
        Shares own = shares;
        if (own == null) {
            return;
        }
        switch (sharers.place) {
            case Sharers.LEAF -> {
                LongObjectMap<Sharers> sharedLeaves = own.leaves;
                if (sharedLeaves != null
                        && sharedLeaves.removeIfSame(sharers.part, sharers)
                        && sharedLeaves.isEmpty()) {
                    own.leaves = null;
                }
            }
            case Sharers.EXACT -> {
                if (own.exact == sharers) {
                    own.exact = null;
                }
            }
            case Sharers.WILDCARD -> {
                if (own.wildcards == sharers) {
                    own.wildcards = null;
                }
            }
            default -> {
                if (own.below == sharers) {
                    own.below = null;
                }
            }
        }
        releaseShares();
    }

    /** Unlinks this node from its parent if it is empty, then the parent if that left it empty, and so on up. */
    void prune() {
        Node node = this;
        while (node.parent != null && node.isEmpty()) {
            Node up = node.parent;
            LongObjectMap<Node> siblings = up.children;
            if (siblings != null && siblings.removeIfSame(node.part, node)) {
                if (siblings.isEmpty()) {
                    up.children = null;
                }
            }
            node = up;
        }
    }
}
