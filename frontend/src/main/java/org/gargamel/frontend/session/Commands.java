package org.gargamel.frontend.session;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.sql.SqlStatement;

/**
 * The statements the front end answers itself, in either protocol: BEGIN, COMMIT and ROLLBACK (the session's
 * {@link Transaction}), SET, RESET, DISCARD and SHOW (its {@link Settings}), version(), and the refusals the parser
 * made. Calls and ad-hoc reads go to the cluster and are not run here.
 */
final class Commands {
    private final Replies replies;
    private final Transaction transaction;
    private final Settings settings;

    Commands(Replies replies, Transaction transaction, Settings settings) {
        this.replies = replies;
        this.transaction = transaction;
        this.settings = settings;
    }

    /**
     * Runs {@code statement} (the caller checked it against a failed block); rows in {@code formats}, after a
     * RowDescription when {@code describeRows}. A refusal is thrown as {@link SqlError}.
     */
    void run(SqlStatement statement, List<Short> formats, boolean describeRows) {
        if (statement instanceof SqlStatement.Begin) {
            transaction.begin(replies);
        } else if (statement instanceof SqlStatement.Commit) {
            transaction.commit(replies);
        } else if (statement instanceof SqlStatement.Rollback) {
            transaction.rollback(replies);
        } else if (statement instanceof SqlStatement.Set set) {
            set(set);
        } else if (statement instanceof SqlStatement.Reset reset) {
            if (reset.name().equals("all")) {
                settings.resetAll();
            } else {
                reportIfChanged(reset.name(), settings.set(reset.name(), null));
            }
            replies.complete("RESET");
        } else if (statement instanceof SqlStatement.Discard discard) {
            settings.resetAll();
            replies.complete("DISCARD " + discard.what());
        } else if (statement instanceof SqlStatement.Show show) {
            send(new ResultRows(columns(show), showRows(show)), formats, describeRows, "SHOW");
        } else if (statement instanceof SqlStatement.Version version) {
            send(new ResultRows(columns(version), List.of(List.of(versionText()))), formats, describeRows, "SELECT 1");
        } else if (statement instanceof SqlStatement.Refused refused) {
            throw new SqlError(refused.sqlState(), refused.message());
        } else if (statement instanceof SqlStatement.Empty) {
            BackendMessages.emptyQueryResponse(replies.out());
        } else if (statement instanceof SqlStatement.Call || statement instanceof SqlStatement.AdHocRead) {
            throw new IllegalStateException("calls and ad-hoc reads go to the cluster, not through Commands");
        }
    }

    /** The columns SHOW and version() return, known before they run; null for any other statement. */
    List<ResultRows.Column> columns(SqlStatement statement) {
        if (statement instanceof SqlStatement.Show show) {
            return show.name().equals("all")
                    ? List.of(
                            new ResultRows.Column("name", PgTypes.TEXT),
                            new ResultRows.Column("setting", PgTypes.TEXT),
                            new ResultRows.Column("description", PgTypes.TEXT))
                    : List.of(new ResultRows.Column(settings.spelling(show.name()), PgTypes.TEXT));
        } else if (statement instanceof SqlStatement.Version version) {
            return List.of(new ResultRows.Column(version.column(), PgTypes.TEXT));
        }
        return null;
    }

    private void send(ResultRows rows, List<Short> formats, boolean describeRows, String tag) {
        ResultEncoder.send(replies.out(), rows, formats, describeRows, tag);
    }

    private String versionText() {
        return "PostgreSQL " + settings.get("server_version") + " (Gargamel front end: calls of stored procedures on "
                + "replicated PostgreSQL)";
    }

    private void set(SqlStatement.Set set) {
        if (set.name().equals("transaction")) {
            replies.complete(
                    "SET"); // SET TRANSACTION ...: each call is a transaction of its own, at the cluster's isolation
            return;
        }
        if (set.name().equals("client_encoding")
                && set.value() != null
                && !set.value().replace("-", "").equalsIgnoreCase("UTF8")
                && !set.value().equalsIgnoreCase("UNICODE")) {
            throw new SqlError(
                    "22023", "the front end speaks UTF8 only; client_encoding " + set.value() + " is not supported");
        }
        String value = settings.set(set.name(), set.value());
        replies.complete("SET");
        reportIfChanged(set.name(), value);
    }

    private void reportIfChanged(String name, String value) {
        if (settings.isReported(name) && value != null) {
            BackendMessages.parameterStatus(replies.out(), settings.spelling(name), value);
        }
    }

    private List<List<String>> showRows(SqlStatement.Show show) {
        if (show.name().equals("all")) {
            List<List<String>> rows = new ArrayList<>();
            settings.all().forEach((name, value) -> rows.add(List.of(name, value, "")));
            return rows;
        }
        String value = settings.get(show.name());
        if (value == null) {
            throw new SqlError("42704", "unrecognized configuration parameter \"" + show.name() + "\"");
        }
        return List.of(List.of(value));
    }
}
