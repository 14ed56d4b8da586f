package org.gargamel.tpcc.terminal;

import org.gargamel.tpcc.random.TpccRandom;
import org.gargamel.tpcc.workload.TransactionType;

/**
 * Minimum keying times and mean think times of clause 5.2.5.7; think times are negative-exponential,
 * truncated at ten times the mean (5.2.5.4).
 */
final class KeyingAndThinkTimes {
    private KeyingAndThinkTimes() {}

    static long keyingNanos(TransactionType type) {
        long seconds = switch (type) {
            case NEW_ORDER -> 18;
            case PAYMENT -> 3;
            case ORDER_STATUS, DELIVERY, STOCK_LEVEL -> 2;
        };
        return seconds * 1_000_000_000L;
    }

    static long thinkNanos(TransactionType type, TpccRandom random) {
        double mean = switch (type) {
            case NEW_ORDER, PAYMENT -> 12;
            case ORDER_STATUS -> 10;
            case DELIVERY, STOCK_LEVEL -> 5;
        };
        double seconds = Math.min(-Math.log(1 - random.nextDouble()) * mean, 10 * mean);
        return (long) (seconds * 1e9);
    }
}
