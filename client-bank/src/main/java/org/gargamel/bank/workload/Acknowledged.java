package org.gargamel.bank.workload;

import java.math.BigDecimal;

/** What a terminal was told committed, for the checks after the run (the bank's ledger of acknowledged outcomes). */
public final class Acknowledged {
    private Acknowledged() {}

    /** An account open_account created, with the id it returned. */
    public record Account(long id, int branch, String owner, BigDecimal initial) {}

    /** A transfer that committed, with the id it returned. */
    public record Transfer(long id, long from, long to, BigDecimal amount) {}
}
