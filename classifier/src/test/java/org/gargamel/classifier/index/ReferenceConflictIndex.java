package org.gargamel.classifier.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.classifier.WriteKey;

/**
 * The conflict index as first written (boxed HashMaps and HashSets): the reference that
 * {@link ConflictIndexDifferentialTest} compares the optimised {@link ConflictIndex} with, dependency for dependency.
 * SHARED keys (increments) in the plainest form: per node, sets of the SHARED writers since the last EXCLUSIVE one.
 */
final class ReferenceConflictIndex {
    private static final long NONE = Long.MIN_VALUE;

    private static final class Node {
        final Node parent;
        final long part;
        final int depth;
        Map<Long, Node> children;
        long lastExact = NONE;
        long lastWildcard = NONE;
        /** EXCLUSIVE writers below since the last EXCLUSIVE wildcard writer here. */
        Set<Long> writersBelow;
        /** SHARED writers below since the last EXCLUSIVE wildcard writer here. */
        final Set<Long> sharersBelow = new HashSet<>();
        /** SHARED wildcard writers here since {@link #lastWildcard}. */
        final Set<Long> sharedWildcards = new HashSet<>();
        /** SHARED writers of this full key since {@link #lastExact}. */
        final Set<Long> sharedExact = new HashSet<>();

        Node(Node parent, long part) {
            this.parent = parent;
            this.part = part;
            this.depth = parent == null ? 0 : parent.depth + 1;
        }

        boolean isEmpty() {
            return (children == null || children.isEmpty())
                    && lastExact == NONE
                    && lastWildcard == NONE
                    && (writersBelow == null || writersBelow.isEmpty())
                    && sharersBelow.isEmpty()
                    && sharedWildcards.isEmpty()
                    && sharedExact.isEmpty();
        }
    }

    /** Where a transaction is recorded, so that {@link #remove} finds it without a search. */
    private static final class Entry {
        final List<Node> exact = new ArrayList<>(4);
        final List<Node> wildcard = new ArrayList<>(2);
        final List<Node> below = new ArrayList<>(8);
        /** Nodes where it is a SHARED writer (of the key, at the prefix, or below). */
        final List<Node> shared = new ArrayList<>(4);
    }

    private final Map<Integer, Node> roots = new HashMap<>();
    private final Map<Long, Entry> entries = new HashMap<>();
    private final ConflictIndex.WildcardDepths wildcardDepths;

    /** An index that assumes a wildcard writer may come at any prefix (for tests and generic use). */
    ReferenceConflictIndex() {
        this(ConflictIndex.WildcardDepths.ANY);
    }

    /** An index for rules whose possible wildcard prefixes are known, e.g. {@code rules::wildcardPossible}. */
    ReferenceConflictIndex(ConflictIndex.WildcardDepths wildcardDepths) {
        this.wildcardDepths = wildcardDepths;
    }

    /**
     * Records transaction {@code txn} as the newest writer of {@code keys} and returns its back-dependencies
     * (distinct, in no particular order, never {@code txn} itself).
     */
    public long[] add(long txn, List<WriteKey> keys) {
        if (txn == NONE) {
            throw new IllegalArgumentException("transaction id " + txn + " is reserved");
        }
        if (entries.containsKey(txn)) {
            throw new IllegalStateException("transaction " + txn + " is already in the conflict index");
        }
        Entry entry = new Entry();
        entries.put(txn, entry);
        DependencySet dependencies = new DependencySet();
        for (WriteKey key : keys) {
            boolean shared = key.shared();
            Node node = roots.computeIfAbsent(key.slot(), slot -> new Node(null, 0));
            // Walk the known parts, collecting the wildcard writers it conflicts with at every prefix on the way.
            for (int depth = 0; depth < key.knownParts(); depth++) {
                collectWildcards(dependencies, node, shared);
                node = child(node, key.parts()[depth]);
            }
            collectWildcards(dependencies, node, shared);
            if (key.knownParts() == key.parts().length) {
                dependencies.add(node.lastExact);
                if (shared) {
                    node.sharedExact.add(txn);
                    entry.shared.add(node);
                } else {
                    node.sharedExact.forEach(dependencies::add);
                    node.sharedExact.clear();
                    node.lastExact = txn;
                    entry.exact.add(node);
                }
            } else if (shared) {
                if (node.writersBelow != null) {
                    node.writersBelow.forEach(dependencies::add);
                }
                node.sharedWildcards.add(txn);
                entry.shared.add(node);
            } else {
                if (node.writersBelow != null) {
                    for (long writer : node.writersBelow) {
                        dependencies.add(writer);
                    }
                    node.writersBelow.clear();
                }
                node.sharersBelow.forEach(dependencies::add);
                node.sharersBelow.clear();
                node.sharedWildcards.clear(); // collected on the way
                node.lastWildcard = txn;
                entry.wildcard.add(node);
            }
            for (Node ancestor = node.parent; ancestor != null; ancestor = ancestor.parent) {
                if (!wildcardDepths.possible(key.slot(), ancestor.depth)) {
                    continue;
                }
                if (shared) {
                    if (ancestor.sharersBelow.add(txn)) {
                        entry.shared.add(ancestor);
                    }
                    continue;
                }
                if (ancestor.writersBelow == null) {
                    ancestor.writersBelow = new HashSet<>();
                }
                if (ancestor.writersBelow.add(txn)) {
                    entry.below.add(ancestor);
                }
            }
        }
        dependencies.remove(txn);
        return dependencies.toArray();
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
        for (Node node : entry.exact) {
            if (node.lastExact == txn) {
                node.lastExact = NONE;
            }
            prune(node);
        }
        for (Node node : entry.wildcard) {
            if (node.lastWildcard == txn) {
                node.lastWildcard = NONE;
            }
            prune(node);
        }
        for (Node node : entry.below) {
            if (node.writersBelow != null) {
                node.writersBelow.remove(txn);
            }
            prune(node);
        }
        for (Node node : entry.shared) {
            node.sharedExact.remove(txn);
            node.sharedWildcards.remove(txn);
            node.sharersBelow.remove(txn);
            prune(node);
        }
    }

    /** The last EXCLUSIVE wildcard writer at {@code node}, and for an EXCLUSIVE writer the SHARED ones since. */
    private static void collectWildcards(DependencySet dependencies, Node node, boolean shared) {
        dependencies.add(node.lastWildcard);
        if (!shared) {
            node.sharedWildcards.forEach(dependencies::add);
        }
    }

    /** Transactions currently recorded. */
    public int size() {
        return entries.size();
    }

    /** Trie nodes currently allocated (for tests and the memory benchmark). */
    public int nodeCount() {
        int count = 0;
        for (Node root : roots.values()) {
            count += count(root);
        }
        return count;
    }

    private static int count(Node node) {
        int count = 1;
        if (node.children != null) {
            for (Node child : node.children.values()) {
                count += count(child);
            }
        }
        return count;
    }

    private static Node child(Node node, long part) {
        if (node.children == null) {
            node.children = new HashMap<>();
        }
        return node.children.computeIfAbsent(part, value -> new Node(node, value));
    }

    private void prune(Node node) {
        while (node != null && node.isEmpty()) {
            Node parent = node.parent;
            if (parent == null) {
                return; // roots stay: one per slot
            }
            if (parent.children != null && parent.children.get(node.part) == node) {
                parent.children.remove(node.part);
            }
            node = parent;
        }
    }

    /** A small set of transaction ids without boxing for the common case of few dependencies. */
    private static final class DependencySet {
        private long[] ids = new long[8];
        private int size;

        void add(long id) {
            if (id == NONE) {
                return;
            }
            for (int i = 0; i < size; i++) {
                if (ids[i] == id) {
                    return;
                }
            }
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
            }
            ids[size++] = id;
        }

        void remove(long id) {
            for (int i = 0; i < size; i++) {
                if (ids[i] == id) {
                    ids[i] = ids[--size];
                    return;
                }
            }
        }

        long[] toArray() {
            return Arrays.copyOf(ids, size);
        }
    }
}
