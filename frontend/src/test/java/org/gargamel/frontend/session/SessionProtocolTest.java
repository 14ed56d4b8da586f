package org.gargamel.frontend.session;

import static org.gargamel.frontend.session.EmbeddedSession.bind;
import static org.gargamel.frontend.session.EmbeddedSession.describePortal;
import static org.gargamel.frontend.session.EmbeddedSession.execute;
import static org.gargamel.frontend.session.EmbeddedSession.parse;
import static org.gargamel.frontend.session.EmbeddedSession.query;
import static org.gargamel.frontend.session.EmbeddedSession.sync;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.protocol.PgTypes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The protocol's state rules of a logged-in session, through the real decoder in an embedded channel, with calls
 * answered at once by a fake cluster: ReadyForQuery's status through BEGIN, COMMIT, ROLLBACK and errors in a block;
 * 25P02 in a failed block; skip-until-Sync; Sync ends the implicit transaction; Execute with a row limit.
 */
@Tag("unit")
class SessionProtocolTest {
    /** Every call commits: a deposit returns its new balance, a statement three rows. */
    private static CallOutcome commit(ProcedureCall call) {
        if (call.procedure().equals("statement")) {
            return CallOutcome.committedReadOnly(
                    1,
                    1,
                    new ResultRows(
                            List.of(new ResultRows.Column("id", PgTypes.INT4)),
                            List.of(List.of("1"), List.of("2"), List.of("3"))));
        }
        return CallOutcome.committed(
                1,
                1,
                new ResultRows(List.of(new ResultRows.Column("deposit", PgTypes.NUMERIC)), List.of(List.of("7"))));
    }

    @Test
    void readyForQueryTellsIdleInBlockAndFailedBlock() {
        try (EmbeddedSession session = EmbeddedSession.loggedIn(SessionProtocolTest::commit)) {
            assertEquals(List.of("C BEGIN", "Z T"), session.exchange(out -> query(out, "BEGIN")));
            assertEquals(
                    List.of("T application_name", "D ", "C SHOW", "Z T"),
                    session.exchange(out -> query(out, "SHOW application_name")));
            assertEquals(List.of("E 42704", "Z E"), session.exchange(out -> query(out, "SHOW no_such")));
            assertEquals(
                    List.of("E 25P02", "Z E"),
                    session.exchange(out -> query(out, "SHOW application_name")),
                    "a failed block refuses what is not COMMIT or ROLLBACK");
            assertEquals(
                    List.of("C ROLLBACK", "Z I"),
                    session.exchange(out -> query(out, "COMMIT")),
                    "COMMIT of a failed block rolls back");
            assertEquals(List.of("C BEGIN", "C COMMIT", "Z I"), session.exchange(out -> query(out, "BEGIN; COMMIT")));
            assertEquals(
                    List.of("C BEGIN", "N 25001", "C BEGIN", "Z T"),
                    session.exchange(out -> query(out, "BEGIN; BEGIN")));
            assertEquals(List.of("C ROLLBACK", "Z I"), session.exchange(out -> query(out, "ROLLBACK")));
            assertEquals(List.of("N 25P01", "C ROLLBACK", "Z I"), session.exchange(out -> query(out, "ROLLBACK")));
            assertEquals(
                    List.of("E 42704", "Z I"),
                    session.exchange(out -> query(out, "SHOW no_such")),
                    "an error outside a block leaves the session idle");
        }
    }

    @Test
    void aFailedBlockRefusesCallsWith25P02InBothProtocolsAndSendsNone() {
        try (EmbeddedSession session = EmbeddedSession.loggedIn(SessionProtocolTest::commit)) {
            assertEquals(
                    List.of("C BEGIN", "E 42704", "Z E"), session.exchange(out -> query(out, "BEGIN; SHOW no_such")));
            assertEquals(List.of("1", "2", "E 25P02", "Z E"), session.exchange(out -> {
                parse(out, "", "SELECT deposit($1, $2)");
                bind(out, "", "", "1", "5");
                execute(out, "", 0);
                sync(out);
            }));
            assertEquals(List.of("E 25P02", "Z E"), session.exchange(out -> query(out, "SELECT * FROM statement(1)")));
            assertEquals(List.of(), session.calls, "no call reached the cluster");
            assertEquals(List.of("C ROLLBACK", "Z I"), session.exchange(out -> query(out, "ROLLBACK")));
            assertEquals(
                    List.of("T deposit", "D 7", "C SELECT 1", "Z I"),
                    session.exchange(out -> query(out, "SELECT deposit(1, 5)")));
            assertEquals(1, session.calls.size());
        }
    }

    @Test
    void afterAnErrorTheExtendedProtocolSkipsEverythingUntilSync() {
        try (EmbeddedSession session = EmbeddedSession.loggedIn(SessionProtocolTest::commit)) {
            assertEquals(List.of("E 26000", "Z I"), session.exchange(out -> {
                bind(out, "", "missing");
                parse(out, "s1", "SELECT deposit($1, $2)");
                bind(out, "", "s1", "1", "5");
                execute(out, "", 0);
                sync(out);
            }));
            assertEquals(List.of(), session.calls, "the skipped Execute sent nothing");
            assertEquals(
                    List.of("1", "2", "D 7", "C SELECT 1", "Z I"),
                    session.exchange(out -> {
                        parse(out, "s1", "SELECT deposit($1, $2)"); // the skipped Parse made no s1
                        bind(out, "", "s1", "1", "5");
                        execute(out, "", 0);
                        sync(out);
                    }),
                    "the cycle after Sync runs");
        }
    }

    @Test
    void syncEndsTheImplicitTransactionItsWritingCallAndItsPortals() {
        try (EmbeddedSession session = EmbeddedSession.loggedIn(SessionProtocolTest::commit)) {
            for (int cycle = 0; cycle < 2; cycle++) {
                assertEquals(
                        List.of("1", "2", "D 7", "C SELECT 1", "Z I"),
                        session.exchange(out -> {
                            parse(out, "", "SELECT deposit($1, $2)");
                            bind(out, "", "", "1", "5");
                            execute(out, "", 0);
                            sync(out);
                        }),
                        "one writing call per Sync cycle, cycle " + cycle);
            }
            assertEquals(
                    List.of("1", "2", "E 0A000", "Z I"),
                    session.exchange(out -> {
                        parse(out, "", "SELECT deposit($1, $2)");
                        bind(out, "", "", "1", "5");
                        execute(out, "", 0);
                        bind(out, "", "", "2", "5");
                        execute(out, "", 0);
                        sync(out);
                    }),
                    "two writing calls in one cycle: refused before either runs");
            assertEquals(2, session.calls.size());
            assertEquals(
                    List.of("1", "2", "Z I", "E 34000", "Z I"),
                    session.exchange(out -> {
                        parse(out, "show", "SHOW application_name");
                        bind(out, "p", "show");
                        sync(out);
                        execute(out, "p", 0);
                        sync(out);
                    }),
                    "outside a block, Sync closes the cycle's portals");
            assertEquals(
                    List.of("C BEGIN", "Z T", "2", "Z T", "D ", "C SHOW", "Z T"),
                    session.exchange(out -> {
                        query(out, "BEGIN");
                        bind(out, "p", "show");
                        sync(out);
                        execute(out, "p", 0);
                        sync(out);
                    }),
                    "in a block, a named portal outlives Sync");
        }
    }

    @Test
    void aQueryStringWithTwoWritingCallsIsRefusedWholeAndEachRunsInItsOwn() {
        try (EmbeddedSession session = EmbeddedSession.loggedIn(SessionProtocolTest::commit)) {
            assertEquals(
                    List.of("E 0A000", "Z I"),
                    session.exchange(out -> query(out, "SELECT deposit(1, 1); SELECT deposit(2, 1)")));
            assertEquals(List.of(), session.calls);
            assertEquals(
                    List.of("T deposit", "D 7", "C SELECT 1", "Z I"),
                    session.exchange(out -> query(out, "SELECT deposit(1, 1)")));
            assertEquals(
                    List.of("T deposit", "D 7", "C SELECT 1", "Z I"),
                    session.exchange(out -> query(out, "SELECT deposit(2, 1)")),
                    "the query string's implicit transaction ended with it");
            assertEquals(
                    List.of("C BEGIN", "T deposit", "D 7", "C SELECT 1", "Z T"),
                    session.exchange(out -> query(out, "BEGIN; SELECT deposit(1, 1)")));
            assertEquals(
                    List.of("E 0A000", "Z E"),
                    session.exchange(out -> query(out, "SELECT deposit(2, 1)")),
                    "a block holds one writing call");
            assertEquals(
                    List.of("N 01000", "C ROLLBACK", "Z I"),
                    session.exchange(out -> query(out, "ROLLBACK")),
                    "ROLLBACK warns that the block's call committed");
            assertEquals(3, session.calls.size());
        }
    }

    @Test
    void aPortalsCallRunsOnceAtDescribeAndExecuteSendsItsRowsInSlices() {
        try (EmbeddedSession session = EmbeddedSession.loggedIn(SessionProtocolTest::commit)) {
            assertEquals(
                    List.of("1", "2", "T id", "D 1", "D 2", "s", "D 3", "C SELECT 3", "Z I"), session.exchange(out -> {
                        parse(out, "", "SELECT * FROM statement($1)");
                        bind(out, "", "", "1");
                        describePortal(out, "");
                        execute(out, "", 2);
                        execute(out, "", 0);
                        sync(out);
                    }));
            assertEquals(1, session.calls.size(), "Describe ran the call; Execute sent its rows");
        }
    }
}
