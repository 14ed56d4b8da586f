package org.gargamel.common.wire;

/**
 * How a transaction id is made: {@code epoch << 32 | sequence}, where the epoch is the write-set log index of the
 * active scheduler's claim (docs/protocol.md, Scheduler failover). A scheduler that takes over therefore never hands
 * out an id an earlier one used, and a node tells at once which scheduler placed a call. Epoch 0: a scheduler that
 * never claimed (tests).
 */
public final class TransactionIds {
    public static final int EPOCH_SHIFT = 32;

    private TransactionIds() {}

    public static long epochOf(long txn) {
        return txn >>> EPOCH_SHIFT;
    }

    /** The first transaction id of {@code epoch}. */
    public static long firstOf(long epoch) {
        return (epoch << EPOCH_SHIFT) | 1;
    }
}
