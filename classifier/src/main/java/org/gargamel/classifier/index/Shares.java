package org.gargamel.classifier.index;

/**
 * A {@link Node}'s SHARED writers, each set since the last EXCLUSIVE writer of its place. Invariant: a field is
 * non-null only while its {@link Sharers} has a live member or no EXCLUSIVE writer has taken over from it yet; the node
 * drops the whole object once every field is null ({@link Node#releaseShares}).
 */
final class Shares {
    /** SHARED writers below since the last EXCLUSIVE wildcard writer here (only an EXCLUSIVE one wants them). */
    Sharers below;
    /** SHARED wildcard writers here since {@link Node#lastWildcard}. */
    Sharers wildcards;
    /** Per full key one part below, its SHARED writers since its last exclusive writer ({@link Node#leaves}). */
    LongObjectMap<Sharers> leaves;
    /** SHARED writers of the node's own key when it is a full key (keys of no part), since {@link Node#lastExact}. */
    Sharers exact;
}
