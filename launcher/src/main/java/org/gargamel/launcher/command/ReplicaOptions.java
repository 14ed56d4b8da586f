package org.gargamel.launcher.command;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.launcher.server.Usage;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --replicas} and {@code --jdbc-url}: the replicas of a run through Gargamel (tpcc run, demo, bank run). */
final class ReplicaOptions {
    static final int MAX_REPLICAS = 16;

    @Option(
            names = "--replicas",
            paramLabel = "N",
            description = "PostgreSQL replicas, one node each (default 3, or the number of --jdbc-url)")
    Integer replicas;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "an existing PostgreSQL server, one per replica; repeatable (default: embedded servers)")
    List<String> jdbcUrls = new ArrayList<>();

    /** The servers given, each once. */
    List<String> urls(CommandSpec spec) {
        TpccCommand.requireDistinct(spec, jdbcUrls);
        return List.copyOf(jdbcUrls);
    }

    /** How many replicas: --replicas, else one per --jdbc-url, else 3; they must agree. */
    int count(CommandSpec spec) {
        int count = Usage.range(
                spec,
                "--replicas",
                replicas == null ? (jdbcUrls.isEmpty() ? RunOptions.DEFAULT_REPLICAS : jdbcUrls.size()) : replicas,
                1,
                MAX_REPLICAS);
        if (!jdbcUrls.isEmpty() && jdbcUrls.size() != count) {
            throw Usage.error(
                    spec,
                    "--replicas " + count + " contradicts the " + jdbcUrls.size()
                            + " --jdbc-url given (one server per replica)");
        }
        return count;
    }
}
