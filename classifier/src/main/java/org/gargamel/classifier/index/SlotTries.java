package org.gargamel.classifier.index;

import java.util.Arrays;
import org.gargamel.classifier.WriteKeyBuffer;

/**
 * The roots of {@link ConflictIndex}'s tries, one per conflict slot, and the creation of their nodes.
 *
 * <p>Invariant: a node's {@link Node#tracksBelow} is {@link ConflictIndex.WildcardDepths#possible} of its slot and
 * depth, asked once per slot and depth and cached; walks that only read ({@link #touchLeaves}, {@link #nodeCount})
 * create nothing.
 */
final class SlotTries {
    /** Slots below this live in an array; others (never seen with generated rules) in a map. */
    private static final int ARRAY_SLOTS = 4096;

    private static final int CACHED_DEPTHS = 64;

    private Node[] roots = new Node[16];
    private LongObjectMap<Node> otherRoots;
    private final ConflictIndex.WildcardDepths wildcardDepths;
    /** wildcardDepths cached per [slot][depth]: 0 unknown, 1 impossible, 2 possible. */
    private byte[][] wildcardCache = new byte[16][];
    /** The slot {@link #newChild} creates a node in (saves a capturing lambda per lookup). */
    private int childSlot;
    /** Written by {@link #touchLeaves} so that its loads are not optimised away; never read. */
    @SuppressWarnings("unused")
    private long touched;

    private final LongObjectMap.Factory<Node, Node> newChild =
            (parent, part) -> new Node(parent, part, parent.depth + 1, wildcardPossible(childSlot, parent.depth + 1));

    SlotTries(ConflictIndex.WildcardDepths wildcardDepths) {
        this.wildcardDepths = wildcardDepths;
    }

    /** The root of {@code slot}'s trie, created if need be. */
    Node root(int slot) {
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

    /** {@code node}'s child at {@code part} in {@code slot}'s trie, created if need be. */
    Node child(Node node, long part, int slot) {
        LongObjectMap<Node> children = node.children;
        if (children == null) {
            node.children = children = new LongObjectMap<>();
        }
        childSlot = slot;
        return children.computeIfAbsent(part, node, newChild);
    }

    /**
     * Reads the home slot of every full key's leaf before any is updated: the loads are independent, so their
     * cache misses (the stock leaves of a large New-Order) overlap instead of being paid one key at a time by the
     * insert loop, whose every step waits for its probe. Walks only nodes that exist (creates nothing).
     */
    void touchLeaves(WriteKeyBuffer keys) {
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

    /** Trie nodes currently allocated, counting each full key's leaf as one. */
    int nodeCount() {
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

    /** {@link ConflictIndex.WildcardDepths#possible}, asked once per slot and depth (it may box and hash). */
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
}
