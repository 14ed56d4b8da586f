package org.gargamel.launcher.run;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.convergence.ConvergenceReport;
import org.gargamel.common.convergence.TableChecksums;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.launcher.server.CommandFailedException;
import org.gargamel.node.transfer.SchemaDigest;

/**
 * Whether existing databases may serve as the replicas of one cluster: the same application schema (the definitions
 * the nodes' schema digest is made of, which the scheduler compares when nodes join) and the same data (table
 * checksums of every table of schema public). Checked before anything starts, so that a difference is named here
 * rather than found by a node refused at the scheduler, or never.
 */
public final class ReplicaAgreement {
    /** How many differing definitions a refusal lists. */
    private static final int SHOWN = 5;

    private ReplicaAgreement() {}

    /** Refuses, naming the database and what differs, unless every database in {@code urls} holds the first's. */
    public static void requireIdentical(List<String> urls, PrintStream err) {
        List<String> reference = definitions(urls.get(0));
        if (reference.isEmpty()) {
            throw new CommandFailedException("refusing to serve " + Secrets.maskUrl(urls.get(0))
                    + ": its schema public holds no table, function or procedure");
        }
        if (urls.size() == 1) {
            return;
        }
        err.println("comparing the replicas' schemas and data ...");
        for (int i = 1; i < urls.size(); i++) {
            String difference = difference(reference, definitions(urls.get(i)));
            if (difference != null) {
                throw new CommandFailedException("refusing to serve: the schema of " + Secrets.maskUrl(urls.get(i))
                        + " differs from that of " + Secrets.maskUrl(urls.get(0)) + ": " + difference);
            }
        }
        ConvergenceReport data = TableChecksums.ofCatalogue().compare(urls);
        if (!data.identical()) {
            throw new CommandFailedException("refusing to serve: the replicas hold different data in table(s) "
                    + data.differingTables() + "; give databases that hold the same data (copies of one database)");
        }
    }

    /**
     * What {@code other} lacks of {@code reference} and holds besides it, a few definitions each; null when they are
     * the same.
     */
    static String difference(List<String> reference, List<String> other) {
        Set<String> missing = new LinkedHashSet<>(reference);
        other.forEach(missing::remove);
        Set<String> extra = new LinkedHashSet<>(other);
        reference.forEach(extra::remove);
        if (missing.isEmpty() && extra.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (!missing.isEmpty()) {
            parts.add("it lacks " + shown(missing));
        }
        if (!extra.isEmpty()) {
            parts.add("it has besides " + shown(extra));
        }
        return String.join("; ", parts);
    }

    private static String shown(Set<String> definitions) {
        List<String> first = definitions.stream().limit(SHOWN).toList();
        return "[" + String.join(", ", first) + "]"
                + (definitions.size() > SHOWN ? " and " + (definitions.size() - SHOWN) + " more" : "");
    }

    private static List<String> definitions(String url) {
        try (Connection connection = JdbcConnections.connect(url)) {
            return SchemaDigest.definitions(connection, "public");
        } catch (SQLException e) {
            throw new CommandFailedException(
                    "cannot read the schema of " + Secrets.maskUrl(url) + ": " + e.getMessage(), e);
        }
    }
}
