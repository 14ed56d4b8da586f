package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;
import org.gargamel.tpcc.random.TpccRandom;

/**
 * The mix as a deck of 100 cards, 45/43/4/4/4, shuffled and dealt one card per transaction; a new
 * shuffle when the deck is empty (clause 5.2.4.2). Every 100 consecutive transactions of a terminal have
 * the exact mix. One deck per terminal; not thread-safe.
 */
public final class TransactionMix {
    private final TpccRandom random;
    private final TransactionType[] deck = new TransactionType[100];
    private int next = deck.length;

    public TransactionMix(TpccRandom random) {
        this.random = random;
        int position = 0;
        for (TransactionType type : TransactionType.values()) {
            for (int i = 0; i < type.cardsPerDeck(); i++) {
                deck[position++] = type;
            }
        }
    }

    public TransactionType next() {
        if (next == deck.length) {
            shuffle();
            next = 0;
        }
        return deck[next++];
    }

    private void shuffle() {
        for (int i = deck.length - 1; i > 0; i--) {
            int j = random.uniform(0, i);
            TransactionType swap = deck[i];
            deck[i] = deck[j];
            deck[j] = swap;
        }
    }

    /** Builds the call for {@code type} from the terminal's state. */
    public static ProcedureCall generate(TransactionType type, TerminalContext terminal) {
        return switch (type) {
            case NEW_ORDER -> NewOrder.generate(terminal);
            case PAYMENT -> Payment.generate(terminal);
            case ORDER_STATUS -> OrderStatus.generate(terminal);
            case DELIVERY -> Delivery.generate(terminal);
            case STOCK_LEVEL -> StockLevel.generate(terminal);
        };
    }
}
