package org.gargamel.common.convergence;

import java.util.List;
import java.util.Objects;

/**
 * One table compared across databases.
 *
 * @param table     the table's name
 * @param identical every database has the same contents
 * @param checksums each database's row count and checksum, in database order
 * @param differing the databases whose contents differ from the majority's (ties go to the group that
 *                  holds the first database); empty when identical
 */
public record TableConvergence(
        String table, boolean identical, List<DatabaseChecksum> checksums, List<String> differing) {

    public TableConvergence {
        Objects.requireNonNull(table, "table");
        checksums = List.copyOf(checksums);
        differing = List.copyOf(differing);
        if (identical != differing.isEmpty()) {
            throw new IllegalArgumentException(
                    "table " + table + ": identical=" + identical + " contradicts differing " + differing);
        }
    }

    /** One database's summary of the table. */
    public record DatabaseChecksum(String database, long rows, String checksum) {
        public DatabaseChecksum {
            Objects.requireNonNull(database, "database");
            Objects.requireNonNull(checksum, "checksum");
        }
    }
}
