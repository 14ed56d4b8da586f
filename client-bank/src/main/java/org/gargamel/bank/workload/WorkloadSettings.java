package org.gargamel.bank.workload;

import java.time.Duration;

/**
 * A bank workload: {@code terminals} closed-loop terminals for {@code duration} over the loaded accounts 1 to {@code
 * accounts} of {@code branches} branches. {@code hotPercent} percent of the account choices fall on the {@code
 * hotAccounts} first accounts (the conflicts); the rest are uniform. Seeded: terminal i draws from {@code seed + i}.
 */
public record WorkloadSettings(
        int terminals, Duration duration, long seed, int branches, long accounts, int hotAccounts, int hotPercent) {
    public WorkloadSettings {
        if (terminals < 1 || branches < 1 || accounts < 2 || hotAccounts < 2 || hotAccounts > accounts) {
            throw new IllegalArgumentException("a bank workload needs terminals >= 1, branches >= 1, accounts >= 2 and "
                    + "2 <= hotAccounts <= accounts; got " + terminals + ", " + branches + ", " + accounts + ", "
                    + hotAccounts);
        }
        if (hotPercent < 0 || hotPercent > 100) {
            throw new IllegalArgumentException("hotPercent must be 0..100, got " + hotPercent);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("the duration must be positive, got " + duration);
        }
    }
}
