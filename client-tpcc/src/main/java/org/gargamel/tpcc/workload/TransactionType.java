package org.gargamel.tpcc.workload;

/** The five TPC-C transactions, with their share of the mix (clause 5.2.3) and their procedure. */
public enum TransactionType {
    NEW_ORDER("new_order", 45, false),
    PAYMENT("payment", 43, false),
    ORDER_STATUS("order_status", 4, true),
    DELIVERY("delivery", 4, false),
    STOCK_LEVEL("stock_level", 4, true);

    private final String procedure;
    private final int cardsPerDeck;
    private final boolean readOnly;

    TransactionType(String procedure, int cardsPerDeck, boolean readOnly) {
        this.procedure = procedure;
        this.cardsPerDeck = cardsPerDeck;
        this.readOnly = readOnly;
    }

    public String procedure() {
        return procedure;
    }

    /** Cards of this type in a deck of 100 (clause 5.2.4.2). */
    public int cardsPerDeck() {
        return cardsPerDeck;
    }

    public boolean readOnly() {
        return readOnly;
    }
}
