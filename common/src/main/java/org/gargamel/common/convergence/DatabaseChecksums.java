package org.gargamel.common.convergence;

import java.util.List;
import java.util.Objects;

/**
 * The checksums of the tables of one database, read from one snapshot.
 *
 * @param database the database's name in reports
 * @param tables   one checksum per table, in the order they were compared
 */
public record DatabaseChecksums(String database, List<TableChecksum> tables) {
    public DatabaseChecksums {
        Objects.requireNonNull(database, "database");
        tables = List.copyOf(tables);
    }

    public TableChecksum table(String name) {
        return tables.stream()
                .filter(t -> t.table().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no checksum of table '" + name + "' for " + database));
    }
}
