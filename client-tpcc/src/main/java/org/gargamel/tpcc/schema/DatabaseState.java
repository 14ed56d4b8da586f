package org.gargamel.tpcc.schema;

import java.util.Objects;

/**
 * What {@link TpccSchema#inspect} found in a database: nothing of ours and nothing else ({@code EMPTY}),
 * a complete TPC-C load ({@code LOADED}), or anything else ({@code OTHER}, with a sentence saying what).
 */
public record DatabaseState(Status status, String description) {
    public enum Status {
        EMPTY,
        LOADED,
        OTHER
    }

    public static final DatabaseState EMPTY = new DatabaseState(Status.EMPTY, "database is empty");
    public static final DatabaseState LOADED = new DatabaseState(Status.LOADED, "database holds a complete TPC-C load");

    public DatabaseState {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(description, "description");
    }

    public static DatabaseState other(String description) {
        return new DatabaseState(Status.OTHER, description);
    }

    public boolean isEmpty() {
        return status == Status.EMPTY;
    }

    public boolean isLoaded() {
        return status == Status.LOADED;
    }

    @Override
    public String toString() {
        return status + " (" + description + ")";
    }
}
