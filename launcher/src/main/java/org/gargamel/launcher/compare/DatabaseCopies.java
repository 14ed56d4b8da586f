package org.gargamel.launcher.compare;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.run.TpccDatabases;
import org.gargamel.tpcc.loader.LoadOptions;
import org.gargamel.tpcc.loader.TpccLoader;

/**
 * Fresh, identical TPC-C databases for every run of a comparison without loading each time: the population is
 * loaded once per server and warehouse count into a template database, and each run gets
 * {@code CREATE DATABASE ... TEMPLATE} copies (a file copy inside PostgreSQL), dropped after the run.
 */
public final class DatabaseCopies {
    private static final Pattern DATABASE_IN_URL = Pattern.compile("^(jdbc:postgresql://[^/]+/)([^?]*)(.*)$");

    private final List<String> serverUrls;
    private final PrintStream progress;
    private int copies;

    /**
     * {@code serverUrls}: one maintenance URL per server (its {@code postgres} database, say); {@code progress}: where
     * the load's progress bar goes.
     */
    public DatabaseCopies(List<String> serverUrls, PrintStream progress) {
        this.serverUrls = List.copyOf(serverUrls);
        this.progress = progress;
    }

    static String template(int warehouses) {
        return "gargamel_tpcc_template_w" + warehouses;
    }

    /** Loads the template for {@code warehouses} into every server (identically: same seed). */
    public void loadTemplates(int warehouses, long seed) throws SQLException {
        String name = template(warehouses);
        List<String> urls = new ArrayList<>();
        for (String server : serverUrls) {
            try (Connection connection = JdbcConnections.connect(server);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP DATABASE IF EXISTS " + name);
                statement.execute("CREATE DATABASE " + name);
            }
            urls.add(withDatabase(server, name));
        }
        new TpccLoader(
                        new LoadOptions(warehouses, seed, LoadOptions.defaultThreads()),
                        TpccDatabases.progress(progress))
                .load(urls);
    }

    /** A fresh copy of the template on each of the first {@code replicas} servers; returns their URLs. */
    public List<String> copy(int warehouses, int replicas) throws SQLException {
        copies++;
        String name = "gargamel_run_" + copies;
        List<String> urls = new ArrayList<>();
        for (String server : serverUrls.subList(0, replicas)) {
            try (Connection connection = JdbcConnections.connect(server);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP DATABASE IF EXISTS " + name);
                statement.execute("CREATE DATABASE " + name + " TEMPLATE " + template(warehouses));
            }
            urls.add(withDatabase(server, name));
        }
        return urls;
    }

    /** Drops a run's copies (their connections are closed by then). */
    public void drop(List<String> urls) throws SQLException {
        for (String url : urls) {
            Matcher matcher = DATABASE_IN_URL.matcher(url);
            if (!matcher.matches()) {
                continue;
            }
            for (String server : serverUrls) {
                if (url.startsWith(matcher.group(1)) && server.startsWith(matcher.group(1))) {
                    try (Connection connection = JdbcConnections.connect(server);
                            Statement statement = connection.createStatement()) {
                        statement.execute("DROP DATABASE IF EXISTS " + matcher.group(2) + " WITH (FORCE)");
                    }
                }
            }
        }
    }

    /** The same server and parameters, another database. */
    static String withDatabase(String url, String database) {
        Matcher matcher = DATABASE_IN_URL.matcher(url);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("cannot find the database name in " + Secrets.maskUrl(url));
        }
        return matcher.group(1) + database + matcher.group(3);
    }
}
