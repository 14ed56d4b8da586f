package org.gargamel.launcher.command;

import org.gargamel.launcher.GargamelMain;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.command.CommandOptions;
import org.gargamel.launcher.command.UsageException;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.check.CheckReport;
import org.gargamel.tpcc.check.CheckRunner;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.LoadProgress;
import org.gargamel.tpcc.loader.TpccLoader;
import org.gargamel.tpcc.schema.DatabaseState;
import org.gargamel.tpcc.schema.TpccSchema;

/** {@code gargamel tpcc load|run|check}: the TPC-C kit on PostgreSQL servers given by URL (or embedded). */
public final class TpccCommand {
    static final int MAX_WAREHOUSES = 10_000;

    private final PrintStream out;
    private final PrintStream err;

    public TpccCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public int run(List<String> arguments) {
        if (arguments.isEmpty()) {
            throw new UsageException("'tpcc' needs a subcommand: load, run or check");
        }
        List<String> rest = arguments.subList(1, arguments.size());
        return switch (arguments.get(0)) {
            case "load" -> load(rest);
            case "run" -> new TpccRunCommand(out, err).run(rest);
            case "check" -> check(rest);
            default -> throw new UsageException("unknown subcommand 'tpcc " + arguments.get(0)
                    + "' (expected load, run or check)");
        };
    }

    static CommandOptions loadOptions() {
        return new CommandOptions("tpcc load")
                .repeatable("--jdbc-url", "URL", "a PostgreSQL server to load (each gets the same data)")
                .value("--warehouses", "W", "number of warehouses (required)")
                .value("--seed", "S", "random seed; the same seed gives the same data (default 1)")
                .value("--threads", "N", "loader threads (default: number of cores)")
                .flag("--help", "this text");
    }

    private int load(List<String> arguments) {
        CommandOptions spec = loadOptions();
        CommandOptions.Parsed options = spec.parse(arguments);
        if (options.flag("--help")) {
            out.print("Usage: scripts/gargamel tpcc load --jdbc-url URL [--jdbc-url URL ...] --warehouses W\n"
                    + spec.usage());
            return GargamelMain.EXIT_OK;
        }
        requireNoPositional(options);
        int warehouses = requiredWarehouses(options);
        long seed = options.longValue("--seed", 1L);
        int threads = options.integer("--threads", LoadOptions.defaultThreads(), 1, 256);
        List<String> urls = options.all("--jdbc-url");
        if (urls.isEmpty()) {
            throw new UsageException("'tpcc load' needs at least one --jdbc-url (embedded servers are removed on "
                    + "exit; 'tpcc run' without --jdbc-url loads and runs on an embedded server)");
        }
        requireDistinct(urls);
        PostgresCluster.external(urls).close();
        for (String url : urls) {
            DatabaseState state = inspect(url);
            if (!state.isEmpty()) {
                throw new CommandFailedException("refusing to load " + url + ": " + state.description()
                        + "; load into an empty database");
            }
        }
        new TpccLoader(new LoadOptions(warehouses, seed, threads), LoadProgress.toStandardError()).load(urls);
        return GargamelMain.EXIT_OK;
    }

    private int check(List<String> arguments) {
        CommandOptions spec = new CommandOptions("tpcc check")
                .repeatable("--jdbc-url", "URL", "a database to check; with several, they are also compared")
                .flag("--help", "this text");
        CommandOptions.Parsed options = spec.parse(arguments);
        if (options.flag("--help")) {
            out.print("Usage: scripts/gargamel tpcc check --jdbc-url URL [--jdbc-url URL ...]\n" + spec.usage());
            return GargamelMain.EXIT_OK;
        }
        requireNoPositional(options);
        List<String> urls = options.all("--jdbc-url");
        if (urls.isEmpty()) {
            throw new UsageException("'tpcc check' needs at least one --jdbc-url");
        }
        requireDistinct(urls);
        PostgresCluster.external(urls).close();
        for (String url : urls) {
            DatabaseState state = inspect(url);
            if (!state.isLoaded()) {
                throw new CommandFailedException("cannot check " + url + ": " + state.description());
            }
        }
        CheckReport report = new CheckRunner().run(urls);
        out.print(report.render());
        if (!report.passed()) {
            err.println("gargamel: error: TPC-C check failed (see the lines marked VIOLATED or differing above)");
            return GargamelMain.EXIT_FAILED;
        }
        return GargamelMain.EXIT_OK;
    }

    static int requiredWarehouses(CommandOptions.Parsed options) {
        options.required("--warehouses");
        return options.integer("--warehouses", 0, 1, MAX_WAREHOUSES);
    }

    static void requireNoPositional(CommandOptions.Parsed options) {
        if (!options.positional().isEmpty()) {
            throw new UsageException("unexpected argument '" + options.positional().get(0) + "'");
        }
    }

    static void requireDistinct(List<String> urls) {
        if (Set.copyOf(urls).size() != urls.size()) {
            throw new UsageException("a --jdbc-url is given twice: " + urls);
        }
    }

    static DatabaseState inspect(String url) {
        try (Connection connection = JdbcConnections.connect(url)) {
            return TpccSchema.inspect(connection);
        } catch (SQLException e) {
            throw new CommandFailedException("cannot inspect " + url + ": " + e.getMessage(), e);
        }
    }
}
