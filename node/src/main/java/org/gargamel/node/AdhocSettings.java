package org.gargamel.node;

import org.gargamel.common.config.ConfigException;
import org.gargamel.node.execution.AdHocReads;

/**
 * The front end's ad-hoc read-only queries on this node (docs/frontend.md): whether they run, when one is cancelled
 * (57014), and the results refused as too large (54000); the file's keys are these names prefixed with
 * {@code adhoc} ({@code adhocReads} for {@code enabled}). A section of {@link NodeConfig}.
 */
public record AdhocSettings(boolean enabled, int statementTimeoutSeconds, int maxRows, long maxCharacters) {
    /** The default of {@code adhocStatementTimeoutSeconds}. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 30;

    /** The default of {@code adhocMaxRows}: a read returning more is refused (54000) rather than held in memory. */
    public static final int DEFAULT_MAX_ROWS = AdHocReads.DEFAULT_MAX_ROWS;

    /** The default of {@code adhocMaxCharacters}. */
    public static final long DEFAULT_MAX_CHARACTERS = AdHocReads.DEFAULT_MAX_CHARACTERS;

    static final AdhocSettings DEFAULT =
            new AdhocSettings(true, DEFAULT_TIMEOUT_SECONDS, DEFAULT_MAX_ROWS, DEFAULT_MAX_CHARACTERS);

    void validate() {
        if (statementTimeoutSeconds < 1 || statementTimeoutSeconds > 86_400) {
            throw new ConfigException(
                    "key 'adhocStatementTimeoutSeconds' must be between 1 and 86400, got " + statementTimeoutSeconds);
        }
        if (maxRows < 1) {
            throw new ConfigException("key 'adhocMaxRows' must be at least 1, got " + maxRows);
        }
        if (maxCharacters < 1024) {
            throw new ConfigException("key 'adhocMaxCharacters' must be at least 1024, got " + maxCharacters);
        }
    }

    /** The executor of these reads. */
    AdHocReads reads() {
        return new AdHocReads(enabled, statementTimeoutSeconds, maxRows, maxCharacters);
    }
}
