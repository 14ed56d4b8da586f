package org.gargamel.classifier.index;

import java.util.Arrays;

/**
 * Where the call being added to {@link ConflictIndex} is recorded, gathered while its keys are walked and then laid
 * out in its {@link Entry} ({@link #recordIn}). Scratch space reused by every add (the index is single-threaded).
 *
 * <p>Invariant: {@link #recordIn} writes {@link Entry#nodes} in the order {@link ConflictIndex#remove} reads it
 * (exact places, wildcard nodes, ancestors below, sharers' nodes) and leaves this object holding no node, so that the
 * scratch arrays keep nothing of the trie alive.
 */
final class EntryPlaces {
    private Node[] exactNodes = new Node[32];
    private long[] exactParts = new long[32];
    private int exactCount;
    private Node[] wildcardNodes = new Node[8];
    private int wildcardCount;
    private Node[] belowNodes = new Node[32];
    private int[] belowEpochs = new int[32];
    private int belowCount;
    private Node[] sharedNodes = new Node[8];
    private Sharers[] sharers = new Sharers[8];
    private int sharedCount;

    /** Starts a new call's places. */
    void clear() {
        exactCount = 0;
        wildcardCount = 0;
        belowCount = 0;
        sharedCount = 0;
    }

    /** An exact write: full key {@code part} below {@code node}, or {@code node}'s own key when it has no part. */
    void exact(Node node, long part) {
        if (exactCount == exactParts.length) {
            exactParts = Arrays.copyOf(exactParts, exactCount * 2);
        }
        exactParts[exactCount] = part;
        exactNodes = push(exactNodes, exactCount++, node);
    }

    /** A wildcard write whose prefix is {@code node}. */
    void wildcard(Node node) {
        wildcardNodes = push(wildcardNodes, wildcardCount++, node);
    }

    /** Recorded among the writers below {@code ancestor}, whose epoch was then {@code epoch}. */
    void below(Node ancestor, int epoch) {
        belowNodes = push(belowNodes, belowCount, ancestor);
        if (belowCount == belowEpochs.length) {
            belowEpochs = Arrays.copyOf(belowEpochs, belowCount * 2);
        }
        belowEpochs[belowCount++] = epoch;
    }

    /** Joined {@code joined}, the sharers of a place of {@code node}. */
    void shared(Node node, Sharers joined) {
        sharedNodes = push(sharedNodes, sharedCount, node);
        if (sharedCount == sharers.length) {
            sharers = Arrays.copyOf(sharers, sharedCount * 2);
        }
        sharers[sharedCount++] = joined;
    }

    /** Lays the places gathered since {@link #clear} out in {@code entry}, and lets go of them here. */
    void recordIn(Entry entry) {
        int exclusive = exactCount + wildcardCount + belowCount;
        int total = exclusive + sharedCount;
        Node[] nodes = total == 0 ? Entry.NO_NODES : new Node[total];
        System.arraycopy(exactNodes, 0, nodes, 0, exactCount);
        System.arraycopy(wildcardNodes, 0, nodes, exactCount, wildcardCount);
        System.arraycopy(belowNodes, 0, nodes, exactCount + wildcardCount, belowCount);
        Arrays.fill(exactNodes, 0, exactCount, null);
        Arrays.fill(wildcardNodes, 0, wildcardCount, null);
        Arrays.fill(belowNodes, 0, belowCount, null);
        if (sharedCount > 0) {
            System.arraycopy(sharedNodes, 0, nodes, exclusive, sharedCount);
            entry.sharers = Arrays.copyOf(sharers, sharedCount);
            Arrays.fill(sharedNodes, 0, sharedCount, null);
            Arrays.fill(sharers, 0, sharedCount, null);
        }
        entry.nodes = nodes;
        entry.exactParts = exactCount == 0 ? Entry.NO_PARTS : Arrays.copyOf(exactParts, exactCount);
        entry.exactEnd = exactCount;
        entry.wildcardEnd = exactCount + wildcardCount;
        entry.belowEpochs = belowCount == 0 ? Entry.NO_EPOCHS : Arrays.copyOf(belowEpochs, belowCount);
    }

    private static Node[] push(Node[] array, int index, Node node) {
        if (index == array.length) {
            array = Arrays.copyOf(array, index * 2);
        }
        array[index] = node;
        return array;
    }
}
