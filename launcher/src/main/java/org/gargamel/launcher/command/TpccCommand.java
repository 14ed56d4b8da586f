package org.gargamel.launcher.command;

import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.gargamel.common.config.Secrets;
import org.gargamel.launcher.server.Usage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel tpcc load|run|check}: the TPC-C kit on PostgreSQL servers given by URL (or embedded). Listed in
 * help by its subcommands.
 */
@Command(
        name = "tpcc",
        hidden = true,
        description = "the TPC-C kit on PostgreSQL servers given by URL (or embedded)",
        customSynopsis = "scripts/gargamel tpcc load|run|check [OPTIONS]",
        subcommands = {TpccLoadCommand.class, TpccRunCommand.class, TpccCheckCommand.class})
public final class TpccCommand implements Callable<Integer> {
    static final int MAX_WAREHOUSES = 10_000;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        throw Usage.error(spec, "'tpcc' needs a subcommand: load, run or check");
    }

    /** Each server once: a URL given twice is an error (the passwords in the message masked). */
    static void requireDistinct(CommandSpec spec, List<String> urls) {
        if (Set.copyOf(urls).size() != urls.size()) {
            throw Usage.error(
                    spec,
                    "a --jdbc-url is given twice: "
                            + urls.stream().map(Secrets::maskUrl).collect(Collectors.joining(", ", "[", "]")));
        }
    }
}
