package org.gargamel.frontend.session;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.protocol.BackendMessages;
import org.gargamel.frontend.protocol.FrontendMessage;
import org.gargamel.frontend.protocol.PgTypes;
import org.gargamel.frontend.sql.SqlStatement;
import org.gargamel.frontend.sql.SqlSyntaxException;
import org.gargamel.frontend.sql.StatementParser;

/**
 * The extended query protocol: prepared statements (Parse), portals (Bind), Describe, Execute (with a row limit:
 * PortalSuspended), Close and Sync. A portal's call runs once, at its Describe or Execute, whichever comes first. After
 * an error every message up to Sync is skipped; Sync ends the cycle's implicit transaction (outside a block its
 * portals close, and a call that writes may run again). Guarded by SessionProtocolTest.
 */
final class ExtendedProtocol {
    /** Ad-hoc statement descriptions a session keeps at most. */
    private static final int MAX_DESCRIBED = 1024;

    private final Session session;
    private final Replies replies;
    private final Transaction transaction;
    private final Commands commands;
    private final Calls calls;
    private final SimpleQuery simple;
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    /** What a replica said of each ad-hoc statement this session described (parameter types, columns). */
    private final Map<Prepared, Prepared.Described> described = new HashMap<>();
    /** After an error, messages are skipped up to Sync. */
    private boolean skipUntilSync;

    ExtendedProtocol(Session session, Transaction transaction, Commands commands, Calls calls, SimpleQuery simple) {
        this.session = session;
        this.replies = session.replies();
        this.transaction = transaction;
        this.commands = commands;
        this.calls = calls;
        this.simple = simple;
    }

    /** Whether messages are skipped until the next Sync (an error came in this cycle). */
    boolean skipping() {
        return skipUntilSync;
    }

    /** An error in the extended protocol: ErrorResponse, then everything up to Sync is skipped. */
    void fail(SqlError error) {
        replies.error(error);
        transaction.failed();
        if (!simple.running()) {
            skipUntilSync = true;
        }
    }

    void sync() {
        skipUntilSync = false;
        calls.cycleEnded();
        portals.remove("");
        transaction.endImplicit();
        if (transaction.idle()) {
            portals.clear(); // the Sync ends the implicit transaction, and its portals with it
        }
        replies.readyForQuery(transaction.block());
    }

    void close(FrontendMessage.Close close) {
        if (close.kind() == 'S') {
            statements.remove(close.name());
        } else {
            portals.remove(close.name());
        }
        BackendMessages.closeComplete(replies.out());
    }

    void parse(FrontendMessage.Parse parse) {
        if (!parse.statement().isEmpty() && statements.containsKey(parse.statement())) {
            fail(new SqlError("42P05", "prepared statement \"" + parse.statement() + "\" already exists"));
            return;
        }
        SqlStatement statement;
        try {
            if (StatementParser.isMultiStatement(parse.sql())) {
                throw new SqlError("42601", "cannot insert multiple commands into a prepared statement");
            }
            statement = session.shared().parser().parse(parse.sql().replaceAll(";\\s*$", ""));
        } catch (SqlSyntaxException e) {
            fail(new SqlError("42601", e.getMessage()));
            return;
        } catch (SqlError e) {
            fail(e);
            return;
        }
        if (statement instanceof SqlStatement.Refused refused) {
            fail(new SqlError(refused.sqlState(), refused.message()));
            return;
        }
        int count = Math.max(
                StatementParser.parameterCount(parse.sql()),
                parse.parameterTypes().size());
        statements.put(parse.statement(), new Prepared(parse.sql(), statement, parse.parameterTypes(), count));
        BackendMessages.parseComplete(replies.out());
    }

    void bind(FrontendMessage.Bind bind) {
        Prepared prepared = statements.get(bind.statement());
        if (prepared == null) {
            fail(new SqlError("26000", "prepared statement \"" + bind.statement() + "\" does not exist"));
            return;
        }
        if (bind.values().size() != prepared.parameterCount()) {
            fail(new SqlError(
                    "08P01",
                    "bind message supplies " + bind.values().size() + " parameters, but prepared statement \""
                            + bind.statement() + "\" requires " + prepared.parameterCount()));
            return;
        }
        if (!bind.portal().isEmpty() && portals.containsKey(bind.portal())) {
            fail(new SqlError("42P03", "cursor \"" + bind.portal() + "\" already exists"));
            return;
        }
        try {
            List<Integer> types = parameterTypes(prepared);
            List<String> texts = new ArrayList<>(bind.values().size());
            for (int i = 0; i < bind.values().size(); i++) {
                byte[] value = bind.values().get(i);
                short format = ResultEncoder.format(bind.parameterFormats(), i);
                texts.add(
                        value == null
                                ? null
                                : format == 0
                                        ? new String(value, StandardCharsets.UTF_8)
                                        : PgTypes.binaryToText(value, ParameterTypes.binaryType(prepared, types, i)));
            }
            ProcedureCall call = prepared.statement() instanceof SqlStatement.Call sqlCall
                    ? calls.build(sqlCall, texts)
                    : prepared.statement() instanceof SqlStatement.AdHocRead read
                            ? ProcedureCall.adHoc(AdHocQuery.run(
                                    read.sql(), ParameterTypes.adHoc(prepared, described.get(prepared)), texts))
                            : null;
            portals.put(bind.portal(), new Portal(prepared, call, bind.resultFormats()));
            BackendMessages.bindComplete(replies.out());
        } catch (PgTypes.ValueException e) {
            fail(SqlError.of(e));
        } catch (SqlError e) {
            fail(e);
        }
    }

    private List<Integer> parameterTypes(Prepared prepared) {
        return ParameterTypes.of(
                prepared, described.get(prepared), session.shared().calls());
    }

    void describe(FrontendMessage.Describe describe) {
        if (describe.kind() == 'S') {
            describeStatement(describe.name());
            return;
        }
        Portal portal = portals.get(describe.name());
        if (portal == null) {
            fail(new SqlError("34000", "portal \"" + describe.name() + "\" does not exist"));
            return;
        }
        try {
            if (runsAtTheCluster(portal)) {
                // The columns of a call are known for sure once it ran: a bound portal runs its call now, and the
                // Execute that follows sends the rows.
                if (portal.outcome == null) {
                    runPortal(portal, () -> describeRan(portal));
                } else {
                    describeRan(portal);
                }
                return;
            }
            List<ResultRows.Column> columns = columnsBeforeRunning(portal.prepared.statement());
            if (columns == null) {
                BackendMessages.noData(replies.out());
            } else {
                BackendMessages.rowDescription(replies.out(), ResultEncoder.fields(columns, portal.resultFormats));
            }
        } catch (SqlError e) {
            fail(e);
        }
    }

    private void describeStatement(String name) {
        Prepared prepared = statements.get(name);
        if (prepared == null) {
            fail(new SqlError("26000", "prepared statement \"" + name + "\" does not exist"));
            return;
        }
        if (prepared.statement() instanceof SqlStatement.AdHocRead read) {
            describeAdHocStatement(prepared, read);
            return;
        }
        List<ResultRows.Column> columns;
        try {
            columns = columnsBeforeRunning(prepared.statement());
        } catch (SqlError e) {
            fail(e);
            return;
        }
        BackendMessages.parameterDescription(replies.out(), parameterTypes(prepared));
        if (columns == null) {
            BackendMessages.noData(replies.out());
        } else {
            BackendMessages.rowDescription(replies.out(), ResultEncoder.fields(columns, List.of()));
        }
    }

    /** Describe of an ad-hoc statement: asked of a replica once per statement text and declared types, then known. */
    private void describeAdHocStatement(Prepared prepared, SqlStatement.AdHocRead read) {
        Prepared.Described known = described.get(prepared);
        if (known != null) {
            sendStatementDescription(known);
            return;
        }
        calls.submit(ProcedureCall.adHoc(AdHocQuery.describe(read.sql(), prepared.parameterTypes())), outcome -> {
            if (outcome.status() != CallOutcome.Status.COMMITTED) {
                fail(SqlError.of(outcome));
                return;
            }
            List<Integer> types = new ArrayList<>();
            if (outcome.result() != null && !outcome.result().isEmpty()) {
                for (String type : outcome.result().split(",", -1)) {
                    types.add(Integer.parseInt(type));
                }
            }
            Prepared.Described description = new Prepared.Described(
                    List.copyOf(types), outcome.rows() != null ? outcome.rows().columns() : List.of());
            if (described.size() >= MAX_DESCRIBED) {
                described.clear(); // a client preparing ever new texts: forget, and ask again when needed
            }
            described.put(prepared, description);
            sendStatementDescription(description);
        });
    }

    private void sendStatementDescription(Prepared.Described description) {
        List<BackendMessages.Field> fields;
        try {
            fields = ResultEncoder.fields(description.columns(), List.of());
        } catch (SqlError e) {
            fail(e);
            return;
        }
        BackendMessages.parameterDescription(replies.out(), description.parameterTypes());
        if (fields.isEmpty()) {
            BackendMessages.noData(replies.out());
        } else {
            BackendMessages.rowDescription(replies.out(), fields);
        }
    }

    /** What a statement returns, known before it runs: a call's from the catalogue or earlier calls; null: nothing. */
    private List<ResultRows.Column> columnsBeforeRunning(SqlStatement statement) {
        if (statement instanceof SqlStatement.Call call) {
            List<ResultRows.Column> columns = session.shared().shapes().columns(call.procedure());
            if (columns == null) {
                throw new SqlError(
                        "0A000",
                        "cannot describe a call of " + call.procedure() + " before one has run: configure the "
                                + "front end's catalog (a replica's JDBC URL) so that it can describe calls");
            }
            return ResultEncoder.shape(call, new ResultRows(columns, List.of())).columns();
        }
        return commands.columns(statement);
    }

    void execute(FrontendMessage.Execute execute) {
        Portal portal = portals.get(execute.portal());
        if (portal == null) {
            fail(new SqlError("34000", "portal \"" + execute.portal() + "\" does not exist"));
            return;
        }
        SqlStatement statement = portal.prepared.statement();
        try {
            if (runsAtTheCluster(portal)) {
                if (portal.outcome == null) {
                    runPortal(portal, () -> sendRan(portal, execute.maxRows()));
                } else {
                    sendRan(portal, execute.maxRows());
                }
                return;
            }
            transaction.block().admit(statement);
            commands.run(statement, portal.resultFormats, false);
        } catch (SqlError e) {
            fail(e);
        }
    }

    /** A portal of a call or an ad-hoc read: it runs at the cluster, once, and keeps its outcome. */
    private static boolean runsAtTheCluster(Portal portal) {
        return portal.prepared.statement() instanceof SqlStatement.Call
                || portal.prepared.statement() instanceof SqlStatement.AdHocRead;
    }

    /** Runs a portal's call or ad-hoc read (write-rule checks included), then {@code after}, the outcome in the portal. */
    private void runPortal(Portal portal, Runnable after) {
        SqlStatement statement = portal.prepared.statement();
        transaction.block().admit(statement);
        if (statement instanceof SqlStatement.Call call && calls.writes(call)) {
            if (transaction.idle() && anotherWritingCallInThisCycle()) {
                throw new SqlError("0A000", Transaction.SEVERAL_WRITING_CALLS);
            }
            transaction.noteWrite(call.procedure());
        }
        calls.submit(portal.call, outcome -> {
            portal.outcome = outcome;
            if (statement instanceof SqlStatement.Call call && outcome.status() == CallOutcome.Status.COMMITTED) {
                session.shared().shapes().learn(call.procedure(), outcome.rows());
            }
            after.run();
        });
    }

    /** The rows of a portal whose call committed, as the client sees them. */
    private static ResultRows rowsOf(Portal portal) {
        CallOutcome outcome = portal.outcome;
        if (portal.prepared.statement() instanceof SqlStatement.Call call) {
            return ResultEncoder.callRows(call, outcome);
        }
        return outcome.rows() != null ? outcome.rows() : ResultRows.EMPTY;
    }

    /** Describe of a portal whose call ran: its columns, or its error. */
    private void describeRan(Portal portal) {
        if (portal.outcome.status() != CallOutcome.Status.COMMITTED) {
            fail(SqlError.of(portal.outcome));
            return;
        }
        List<BackendMessages.Field> fields;
        try {
            fields = ResultEncoder.fields(rowsOf(portal).columns(), portal.resultFormats);
        } catch (SqlError e) {
            fail(e);
            return;
        }
        if (fields.isEmpty() && portal.prepared.statement() instanceof SqlStatement.AdHocRead) {
            BackendMessages.noData(replies.out());
        } else {
            BackendMessages.rowDescription(replies.out(), fields);
        }
    }

    /**
     * Execute of a portal whose call ran: its rows from position {@code sent}, up to {@code maxRows} (0: all), then
     * PortalSuspended if rows are left, else the command tag; or its error.
     */
    private void sendRan(Portal portal, int maxRows) {
        if (portal.outcome.status() != CallOutcome.Status.COMMITTED) {
            fail(SqlError.of(portal.outcome)); // the call's error, told at Execute
            return;
        }
        ResultRows rows = rowsOf(portal);
        int from = portal.sent;
        int to = maxRows > 0
                ? Math.min(rows.rows().size(), from + maxRows)
                : rows.rows().size();
        try {
            ResultEncoder.dataRows(replies.out(), rows, portal.resultFormats, from, to);
        } catch (SqlError e) {
            fail(e);
            return;
        }
        portal.sent = to;
        if (to < rows.rows().size()) {
            BackendMessages.portalSuspended(replies.out());
            return;
        }
        replies.complete(
                portal.prepared.statement() instanceof SqlStatement.Call call
                        ? ResultEncoder.callTag(call, rows)
                        : "SELECT " + rows.rows().size());
    }

    /**
     * Whether the messages already received for this Sync cycle (its implicit transaction) bind another call that
     * writes: pgjdbc sends a multi-statement string or a batch whole, up to its Sync, so such a cycle is refused before
     * any of its calls runs. Messages not yet received cannot be seen; their call is refused when it comes.
     */
    private boolean anotherWritingCallInThisCycle() {
        Map<String, SqlStatement> parsedAhead = new HashMap<>();
        for (FrontendMessage message : session.queued()) {
            if (message instanceof FrontendMessage.Sync) {
                return false;
            }
            if (message instanceof FrontendMessage.Parse parse) {
                SqlStatement statement;
                try {
                    statement = session.shared().parser().parse(parse.sql().replaceAll(";\\s*$", ""));
                } catch (RuntimeException e) {
                    statement = null; // refused when its turn comes
                }
                parsedAhead.put(parse.statement(), statement);
            } else if (message instanceof FrontendMessage.Bind bind) {
                SqlStatement statement = parsedAhead.containsKey(bind.statement())
                        ? parsedAhead.get(bind.statement())
                        : statements.containsKey(bind.statement())
                                ? statements.get(bind.statement()).statement()
                                : null;
                if (TransactionBlock.bounds(statement)) {
                    return false;
                }
                if (calls.writes(statement)) {
                    return true;
                }
            }
        }
        return false;
    }
}
