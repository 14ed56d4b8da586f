package org.gargamel.bank.workload;

/** The bank's procedures as the workload calls them, with their share of the mix (percent, summing to 100). */
public enum BankProcedure {
    OPEN_ACCOUNT("open_account", 5),
    DEPOSIT("deposit", 30),
    WITHDRAW("withdraw", 20),
    TRANSFER("transfer", 30),
    ACCOUNT_STATEMENT("account_statement", 10),
    BRANCH_AUDIT("branch_audit", 5);

    private final String sqlName;
    private final int percent;

    BankProcedure(String sqlName, int percent) {
        this.sqlName = sqlName;
        this.percent = percent;
    }

    public String sqlName() {
        return sqlName;
    }

    public int percent() {
        return percent;
    }

    /** Whether the procedure only reads (the rules say read-only: true). */
    public boolean readOnly() {
        return this == ACCOUNT_STATEMENT || this == BRANCH_AUDIT;
    }

    /** The procedure whose share covers {@code roll} (0 to 99). */
    static BankProcedure forRoll(int roll) {
        int bound = 0;
        for (BankProcedure procedure : values()) {
            bound += procedure.percent;
            if (roll < bound) {
                return procedure;
            }
        }
        throw new IllegalArgumentException("roll " + roll + " is not in 0..99");
    }
}
