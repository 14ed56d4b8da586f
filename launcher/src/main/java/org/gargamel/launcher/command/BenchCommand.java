package org.gargamel.launcher.command;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.launcher.server.Usage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code gargamel bench NAME}: {@code bench costs} is here ({@link BenchCostsCommand}); the JMH benchmarks live in the
 * modules' test code, not in this jar, so {@code scripts/gargamel} runs them ({@code scripts/bench-NAME}) and this
 * command only says so for any other name.
 */
@Command(
        name = "bench",
        description = "costs: CPU per call by role beside PostgreSQL's logical replication (issue 40); JMH benchmarks:"
                + " classifier (conflict index), scheduler, frontend (what the front end adds per call)",
        customSynopsis = {
            "scripts/gargamel bench costs [--replicas 1,3] [--warmup D] [--duration D] [--out DIR] ...",
            "scripts/gargamel bench classifier|scheduler|frontend [JMH options]"
        },
        subcommands = {BenchCostsCommand.class})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    // UnusedVariable is wrong here: picocli fills it by reflection, so that any JMH option reaches call() (which only
    // says where the benchmarks are) instead of failing as an unknown option.
    @SuppressWarnings("UnusedVariable")
    @Unmatched
    private List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() {
        throw Usage.error(
                spec,
                "'bench' runs 'costs' itself and the JMH benchmarks from the modules' test code: run it as "
                        + "scripts/gargamel bench costs|classifier|scheduler|frontend");
    }
}
