package org.gargamel.launcher.command;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.launcher.server.Usage;
import org.gargamel.provisioning.PostgresCluster;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --jdbc-url}, repeatable: the existing servers a load or check command of a kit works on. */
final class ServerUrlOptions {
    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "an existing PostgreSQL server; repeatable (each is loaded alike, or checked and compared)")
    private List<String> jdbcUrls = new ArrayList<>();

    /**
     * The servers given: at least one (else a usage error saying {@code whenNone}), each once, and every one reachable,
     * checked before anything is written.
     */
    List<String> require(CommandSpec spec, String whenNone) {
        if (jdbcUrls.isEmpty()) {
            throw Usage.error(spec, whenNone);
        }
        TpccCommand.requireDistinct(spec, jdbcUrls);
        PostgresCluster.external(jdbcUrls).close();
        return List.copyOf(jdbcUrls);
    }
}
