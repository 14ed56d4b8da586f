package org.gargamel.common.convergence;

import java.util.Objects;

/**
 * One table's contents summarised: equal checksums mean equal contents (see {@link TableChecksums}).
 *
 * @param table    the table's name
 * @param rows     its number of rows
 * @param checksum 32 hex digits
 */
public record TableChecksum(String table, long rows, String checksum) {
    public TableChecksum {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(checksum, "checksum");
    }

    /** Same table contents: same row count and same checksum. */
    public boolean sameContents(TableChecksum other) {
        return table.equals(other.table) && rows == other.rows && checksum.equals(other.checksum);
    }
}
