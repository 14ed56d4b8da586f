package org.gargamel.launcher.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.gargamel.bank.workload.WorkloadSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.provisioning.PostgresBackend;

/**
 * A validated bank run: {@code replicas} servers ({@code jdbcUrls}, or started by {@code backend}), a Gargamel
 * cluster started here in {@code mode} and {@code isolation} with {@code workers} workers per node, and the workload
 * on a bank of {@code branches} branches of {@code accountsPerBranch} accounts. Nothing started yet.
 */
public record BankRunRequest(
        int replicas,
        List<String> jdbcUrls,
        PostgresBackend backend,
        Mode mode,
        Isolation isolation,
        int workers,
        int branches,
        int accountsPerBranch,
        int terminals,
        Duration duration,
        int hotAccounts,
        int hotPercent,
        long seed,
        Path out) {
    public BankRunRequest {
        jdbcUrls = List.copyOf(jdbcUrls);
    }

    /** The workload on a bank of {@code bankBranches} branches and loaded accounts 1 to {@code bankAccounts}. */
    public WorkloadSettings workload(int bankBranches, long bankAccounts) {
        return new WorkloadSettings(
                terminals,
                duration,
                seed,
                bankBranches,
                bankAccounts,
                (int) Math.min(hotAccounts, bankAccounts),
                hotPercent);
    }
}
