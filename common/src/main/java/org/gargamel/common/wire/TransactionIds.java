package org.gargamel.common.wire;

/**
 * How a transaction id is made: {@code epoch << 32 | sequence}, where the epoch is the write-set log index of the
 * active scheduler's claim (docs/protocol.md, Scheduler failover). A scheduler that takes over therefore never hands
 * out an id an earlier one used, and a node tells at once which scheduler placed a call. Epoch 0: a scheduler that
 * never claimed (tests).
 *
 * <p>Sites: a site's scheduler also puts its site's number (0 to {@value #MAX_SITES} - 1) in the sequence's top
 * {@value #SITE_BITS} bits. With a write-set log per site two sites' schedulers may claim at the same index of their
 * own logs, and their ids must still differ. A scheduler then hands out at most 2^{@value #SEQUENCE_BITS} ids per
 * epoch (a new start claims a new epoch).
 */
public final class TransactionIds {
    public static final int EPOCH_SHIFT = 32;
    public static final int SITE_BITS = 6;
    public static final int MAX_SITES = 1 << SITE_BITS;
    public static final int SEQUENCE_BITS = EPOCH_SHIFT - SITE_BITS;

    private TransactionIds() {}

    public static long epochOf(long txn) {
        return txn >>> EPOCH_SHIFT;
    }

    /** The site number in a site scheduler's id ({@link #firstOf(long, int)}); 0 for a single site's. */
    public static int siteOf(long txn) {
        return (int) ((txn >>> SEQUENCE_BITS) & (MAX_SITES - 1));
    }

    /** The first transaction id of {@code epoch}. */
    public static long firstOf(long epoch) {
        return (epoch << EPOCH_SHIFT) | 1;
    }

    /** The first transaction id of {@code epoch} at site number {@code site} ({@link #MAX_SITES} at most). */
    public static long firstOf(long epoch, int site) {
        if (site < 0 || site >= MAX_SITES) {
            throw new IllegalArgumentException("site number " + site + " is not between 0 and " + (MAX_SITES - 1));
        }
        return (epoch << EPOCH_SHIFT) | ((long) site << SEQUENCE_BITS) | 1;
    }

    /** The last transaction id a scheduler that started at {@code first} may hand out (before the next site's). */
    public static long lastFrom(long first, boolean site) {
        long bits = site ? SEQUENCE_BITS : EPOCH_SHIFT;
        return (first & ~((1L << bits) - 1)) | ((1L << bits) - 1);
    }
}
