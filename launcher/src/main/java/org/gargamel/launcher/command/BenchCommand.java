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
 * {@code gargamel bench NAME}: the JMH benchmarks live in the modules' test code, not in this jar, so
 * {@code scripts/gargamel} runs them ({@code scripts/bench-NAME}); this command only says so, and is here so that help
 * lists it.
 */
@Command(
        name = "bench",
        description =
                "JMH benchmarks: classifier (conflict index), scheduler, frontend (what the front end adds per call)",
        customSynopsis = "scripts/gargamel bench classifier|scheduler|frontend [JMH options]")
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
                "'bench' runs the JMH benchmarks from the modules' test code: run it as "
                        + "scripts/gargamel bench classifier|scheduler|frontend");
    }
}
