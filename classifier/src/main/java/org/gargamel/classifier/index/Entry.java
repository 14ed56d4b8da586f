package org.gargamel.classifier.index;

/**
 * A transaction recorded in {@link ConflictIndex} and every place it is recorded, so that {@link ConflictIndex#remove}
 * finds them without a search.
 *
 * <p>Invariant: {@link #nodes} is laid out as {@link EntryPlaces#recordIn} writes it: exact places in
 * {@code [0, exactEnd)}, wildcard nodes in {@code [exactEnd, wildcardEnd)}, then the ancestors it is below (one epoch
 * each in {@link #belowEpochs}), then the nodes of the sharers it joined (the last {@code sharers.length}).
 * {@link #live} is false from its removal on; a removed entry holds no trie node ({@link #release}).
 */
final class Entry {
    static final Node[] NO_NODES = new Node[0];
    static final int[] NO_EPOCHS = new int[0];
    static final long[] NO_PARTS = new long[0];
    static final Sharers[] NO_SHARERS = new Sharers[0];

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

    /** After removal: it may linger in writers-below arrays until they are compacted; let go of the trie. */
    void release() {
        nodes = NO_NODES;
        exactParts = NO_PARTS;
        belowEpochs = NO_EPOCHS;
        sharers = NO_SHARERS;
    }
}
