package org.gargamel.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.node.access.RoleLogin;
import org.gargamel.node.access.RoleLogins;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The least privilege a node's own login needs (docs/node.md, The node's login), found by running two nodes on a login
 * that is no superuser: it owns the application's tables (capture installs a trigger on each, the sequences are
 * aligned, write-sets are applied into them), may create a schema in the database (gargamel, where capture and the
 * replica's state live), may set {@code session_replication_role} (PostgreSQL 15's {@code GRANT SET ON PARAMETER}:
 * write-sets are applied with triggers quiet), and is granted the roles it serves (a call as a role runs after
 * {@code SET LOCAL ROLE}). With exactly that, calls at both nodes commit, as the node and as a role, and the replicas
 * are identical.
 */
@Tag("integration")
class NodeLoginTest {
    private static final String LOGIN = "gargamel_node";
    private static final long TIMEOUT = 30_000;

    @Test
    void aNodeServesWithoutSuperuserWithTheGrantsItDocuments() throws Exception {
        try (BankReplicas bank = new BankReplicas()) {
            bank.reset();
            for (int i = 0; i < 2; i++) {
                try (Connection connection = bank.servers.connect(i);
                        Statement statement = connection.createStatement()) {
                    statement.execute("CREATE ROLE " + LOGIN + " LOGIN");
                    statement.execute("GRANT CREATE ON DATABASE " + connection.getCatalog() + " TO " + LOGIN);
                    statement.execute("GRANT SET ON PARAMETER session_replication_role TO " + LOGIN);
                    statement.execute("DO $$ DECLARE t record; BEGIN FOR t IN SELECT tablename FROM pg_tables "
                            + "WHERE schemaname = 'public' LOOP EXECUTE format('ALTER TABLE public.%I OWNER TO "
                            + LOGIN + "', t.tablename); END LOOP; END $$");
                    statement.execute("CREATE ROLE teller LOGIN");
                    statement.execute("GRANT SELECT, UPDATE ON district TO teller");
                    statement.execute("GRANT teller TO " + LOGIN);
                }
            }
            bank.startNodes(
                    Mode.GARGAMEL,
                    Isolation.PSI,
                    null,
                    BankReplicas.NODES,
                    config -> config.toBuilder()
                            .jdbcUrl(config.database().jdbcUrl().replace("user=postgres", "user=" + LOGIN))
                            .roles(new RoleLogins(List.of(RoleLogin.trusted("teller")), false))
                            .build());
            FakeScheduler scheduler = bank.scheduler;
            scheduler.execute("node-1", 0, 1, new long[0], ProcedureCall.of("new_order", 1, 1, "a"));
            scheduler.execute("node-2", 0, 2, new long[0], ProcedureCall.of("new_order", 1, 2, "b"));
            scheduler.execute(
                    "node-2",
                    1,
                    3,
                    new long[0],
                    ProcedureCall.of("payment", 2, 3, new BigDecimal("7.50")).asRole("teller"));
            for (long txn = 1; txn <= 3; txn++) {
                CallOutcome outcome = scheduler.awaitOutcome(txn, TIMEOUT);
                assertEquals(CallOutcome.Status.COMMITTED, outcome.status(), outcome.toString());
            }
            scheduler.awaitVisibleEverywhere(BankReplicas.NODES, new long[] {1, 2, 3}, TIMEOUT);
            assertEquals(bank.dump(0), bank.dump(1), "both replicas hold both orders and the payment");
            try (Connection connection = bank.servers.connect(0);
                    Statement statement = connection.createStatement();
                    ResultSet rows =
                            statement.executeQuery("SELECT rolsuper FROM pg_roles WHERE rolname = '" + LOGIN + "'")) {
                rows.next();
                assertFalse(rows.getBoolean(1), "the node's login is no superuser");
            }
        }
    }
}
