package org.gargamel.launcher.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import org.gargamel.launcher.verify.OnlineVerify;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel verify}: whether a running cluster's replicas hold the same rows, checked beside its traffic
 * ({@link OnlineVerify}); exit 1 naming each table and key that differs for good.
 */
@Command(
        name = "verify",
        description = "compare the replicas of a running cluster row by row, beside its traffic, and name every "
                + "table and key that differs",
        customSynopsis = "scripts/gargamel verify --jdbc-url URL --jdbc-url URL [...] [--rate ROWS] [--buckets B]"
                + " [--out FILE]")
public final class VerifyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ServerUrlOptions servers;

    @Option(
            names = "--rate",
            paramLabel = "ROWS",
            defaultValue = "200000",
            description = "rows read per second at each replica, at most (default ${DEFAULT-VALUE}): the check's "
                    + "share of the servers beside their traffic")
    private long rate;

    @Option(
            names = "--buckets",
            paramLabel = "B",
            defaultValue = "1024",
            description = "buckets of keys per table (a power of two; default ${DEFAULT-VALUE}): a differing bucket "
                    + "is read key by key")
    private int buckets;

    @Option(
            names = "--settle-timeout",
            paramLabel = "D",
            defaultValue = "60s",
            converter = DurationConverter.class,
            description = "how long to wait for every replica to reach a common log position (default 60s)")
    private Duration settleTimeout;

    @Option(names = "--out", paramLabel = "FILE", description = "also write the report as JSON to FILE")
    private Path out;

    private final CommandContext context;

    VerifyCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        List<String> urls = servers.require(spec, "'verify' needs the --jdbc-url of every replica");
        if (urls.size() < 2) {
            throw Usage.error(spec, "'verify' compares replicas: give at least two --jdbc-url");
        }
        OnlineVerify.Options options;
        try {
            options = new OnlineVerify.Options(buckets, rate, settleTimeout);
        } catch (IllegalArgumentException e) {
            throw Usage.error(spec, "--buckets or --rate: " + e.getMessage());
        }
        List<String> names = urls.stream().map(Secrets::maskUrl).toList();
        OnlineVerify.Report report;
        try {
            report = new OnlineVerify(urls, names, options, context.err()).run();
        } catch (CheckException e) {
            throw new CommandFailedException("verify: " + e.getMessage());
        }
        if (out != null) {
            write(report);
        }
        if (report.identical()) {
            context.out()
                    .printf(
                            "verify: %d replicas identical (%,d rows read; %d keys differed only while in flight)%n",
                            names.size(), report.rowsRead(), report.inFlight());
            return ExitCodes.OK;
        }
        context.out()
                .printf(
                        "verify: %d keys differ for good between the replicas:%n",
                        report.divergences().size());
        for (OnlineVerify.Divergence divergence : report.divergences()) {
            context.out()
                    .printf(
                            "  table %s, key %s: row hashes %s%n",
                            divergence.table(), divergence.key(), divergence.rowHashes());
        }
        context.err().println("gargamel: error: the replicas differ (see the keys above)");
        return ExitCodes.FAILED;
    }

    private void write(OnlineVerify.Report report) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("replicas", report.replicas());
        json.put("identical", report.identical());
        json.put("rowsRead", report.rowsRead());
        json.put("inFlight", report.inFlight());
        List<Map<String, Object>> divergences = new ArrayList<>();
        for (OnlineVerify.Divergence divergence : report.divergences()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("table", divergence.table());
            entry.put("key", divergence.key());
            entry.put("rowHashes", divergence.rowHashes());
            divergences.add(entry);
        }
        json.put("divergences", divergences);
        try {
            Files.createDirectories(out.toAbsolutePath().getParent());
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), json);
        } catch (IOException e) {
            throw new CommandFailedException("verify: cannot write " + out + ": " + e.getMessage());
        }
    }
}
