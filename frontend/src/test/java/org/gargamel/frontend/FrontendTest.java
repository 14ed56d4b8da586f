package org.gargamel.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.gargamel.frontend.session.ClientLimits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * The front end through the real pgjdbc driver and psql, in front of the real scheduler and a node on embedded
 * PostgreSQL: calls with literals and parameters, their rows and types, a procedure's own error, SCRAM, the statements
 * it refuses, and session commands.
 */
@Tag("integration")
class FrontendTest {
    @TempDir
    static Path directory;

    private static ShopCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShopCluster(1, directory);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCallWithLiteralsReturnsTheProcedureRowsWithTheirTypes() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT * FROM statement(3)")) {
            ResultSetMetaData metaData = rows.getMetaData();
            assertEquals(3, metaData.getColumnCount());
            assertEquals(List.of("id", "owner", "balance"), labels(metaData));
            assertEquals(List.of("int4", "text", "numeric"), typeNames(metaData));
            assertTrue(rows.next());
            assertEquals(3, rows.getInt("id"));
            assertEquals("owner 3", rows.getString("owner"));
            assertEquals(new BigDecimal("100.00"), rows.getBigDecimal("balance"));
            assertFalse(rows.next());
        }
    }

    @Test
    void anUpdateCallCommitsAtTheReplicaAndReturnsItsValue() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT deposit(5, 12.50)")) {
            assertEquals("deposit", rows.getMetaData().getColumnLabel(1));
            assertEquals("numeric", rows.getMetaData().getColumnTypeName(1));
            assertTrue(rows.next());
            assertEquals(new BigDecimal("112.50"), rows.getBigDecimal(1));
        }
        assertEquals("112.50", cluster.query(0, "SELECT balance FROM account WHERE id = 5"));
    }

    @Test
    void aSetReturningCallGivesEveryRowAndItsCount() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            assertTrue(statement.execute("SELECT * FROM listing(11, 14, '2026-01-02 03:04:05.5')"));
            try (ResultSet rows = statement.getResultSet()) {
                assertEquals(
                        List.of("int4", "text", "numeric", "bool", "int8", "timestamp", "_text"),
                        typeNames(rows.getMetaData()));
                List<Integer> ids = new ArrayList<>();
                while (rows.next()) {
                    ids.add(rows.getInt(1));
                    assertEquals(rows.getInt(1) * 10_000_000_000L, rows.getLong("big"));
                    assertEquals(
                            LocalDateTime.of(2026, 1, 2, 3, 4, 5, 500_000_000),
                            rows.getTimestamp("at").toLocalDateTime());
                    Array tags = rows.getArray("tags");
                    assertEquals(java.util.Arrays.asList("a", "b c", null), java.util.Arrays.asList((Object[])
                            tags.getArray()));
                }
                assertEquals(List.of(11, 12, 13, 14), ids);
            }
        }
    }

    @Test
    void theCallFormsShapeTheResultAsPostgresqlWould() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT statement(4) AS s")) {
                assertEquals(List.of("s"), labels(rows.getMetaData()));
                assertTrue(rows.next());
                assertEquals("(4,\"owner 4\",100.00)", rows.getString(1));
            }
            try (ResultSet rows = statement.executeQuery("CALL statement(4)")) {
                assertEquals(List.of("id", "owner", "balance"), labels(rows.getMetaData()));
            }
        }
    }

    @Test
    void aProcedureErrorReachesTheClientAsThatError() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            PSQLException error =
                    assertThrows(PSQLException.class, () -> statement.executeQuery("SELECT withdraw(6, 500)"));
            assertEquals("GA002", error.getSQLState());
            assertEquals(
                    "insufficient funds in account 6",
                    error.getServerErrorMessage().getMessage());
            assertEquals(
                    "balance 100.00, asked 500", error.getServerErrorMessage().getDetail());
            assertEquals("deposit first", error.getServerErrorMessage().getHint());
            // The session goes on.
            try (ResultSet rows = statement.executeQuery("SELECT withdraw(6, 1)")) {
                assertTrue(rows.next());
                assertEquals(new BigDecimal("99.00"), rows.getBigDecimal(1));
            }
        }
    }

    @Test
    void scramLoginNeedsTheRightPassword() throws SQLException {
        try (Connection connection = cluster.connect()) {
            assertTrue(connection.isValid(5));
        }
        long started = System.nanoTime();
        PSQLException wrong = assertThrows(
                PSQLException.class,
                () -> cluster.connect(ShopCluster.USER, "wrong", new Properties())
                        .close());
        assertEquals("28P01", wrong.getSQLState());
        assertTrue(
                System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(500),
                "a failed login waits authenticationFailureDelayMillis (500 by default) before its answer");
        assertTrue(
                wrong.getMessage().contains("password authentication failed for user \"tester\""), wrong.getMessage());
        PSQLException unknown = assertThrows(
                PSQLException.class,
                () -> cluster.connect("nobody", "x", new Properties()).close());
        assertEquals("28P01", unknown.getSQLState(), "an unknown user looks like a wrong password");
    }

    @Test
    void adHocWritesAndQueriesAreRefusedWithAReason() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            PSQLException insert = assertThrows(
                    PSQLException.class, () -> statement.execute("INSERT INTO account VALUES (99, 'x', 1)"));
            assertEquals("0A000", insert.getSQLState());
            assertTrue(insert.getMessage().contains("deposit"), insert.getMessage());
            PSQLException ddl = assertThrows(PSQLException.class, () -> statement.execute("DROP TABLE account"));
            assertEquals("0A000", ddl.getSQLState());
            PSQLException unknown =
                    assertThrows(PSQLException.class, () -> statement.execute("SELECT nothing_here(1)"));
            assertEquals("42883", unknown.getSQLState());
        }
        assertEquals("20", cluster.query(0, "SELECT count(*) FROM account"), "nothing was written");
    }

    @Test
    void aTransactionBlockHoldsOneWritingCall() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("BEGIN; SELECT deposit(7, 1); COMMIT");
            assertEquals("101.00", cluster.query(0, "SELECT balance FROM account WHERE id = 7"));
            PSQLException two = assertThrows(
                    PSQLException.class, () -> statement.execute("SELECT deposit(7, 1); SELECT deposit(8, 1)"));
            assertEquals("0A000", two.getSQLState());
            assertEquals("101.00", cluster.query(0, "SELECT balance FROM account WHERE id = 7"), "nothing ran");
            connection.setAutoCommit(false);
            statement.executeQuery("SELECT deposit(8, 1)").close();
            PSQLException second =
                    assertThrows(PSQLException.class, () -> statement.executeQuery("SELECT deposit(9, 1)"));
            assertEquals("0A000", second.getSQLState());
            connection.rollback();
            connection.setAutoCommit(true);
            assertEquals("101.00", cluster.query(0, "SELECT balance FROM account WHERE id = 8"));
            assertEquals("100.00", cluster.query(0, "SELECT balance FROM account WHERE id = 9"));
        }
    }

    @Test
    void sessionCommandsAreAnsweredByTheFrontEnd() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("ApplicationName", "at startup");
        properties.setProperty("assumeMinServerVersion", "15"); // application_name in the startup message
        try (Connection connection = cluster.connect(ShopCluster.USER, ShopCluster.PASSWORD, properties);
                Statement statement = connection.createStatement()) {
            statement.execute("SET application_name = 'shop test'");
            try (ResultSet rows = statement.executeQuery("SHOW application_name")) {
                assertTrue(rows.next());
                assertEquals("shop test", rows.getString(1));
            }
            statement.execute("RESET application_name");
            try (ResultSet rows = statement.executeQuery("SHOW application_name")) {
                assertTrue(rows.next());
                assertEquals("at startup", rows.getString(1));
            }
            try (ResultSet rows = statement.executeQuery("SELECT version()")) {
                assertTrue(rows.next());
                assertTrue(rows.getString(1).startsWith("PostgreSQL 15.0 (Gargamel"), rows.getString(1));
            }
            PSQLException unknown = assertThrows(PSQLException.class, () -> statement.executeQuery("SHOW no_such"));
            assertEquals("42704", unknown.getSQLState());
        }
    }

    @Test
    void preparedCallsRunWithTextAndBinaryParametersAndResults() throws SQLException {
        Properties binary = new Properties();
        binary.setProperty("prepareThreshold", "1"); // named statements and binary transfer from the first run
        for (Properties properties : List.of(new Properties(), binary)) {
            try (Connection connection = cluster.connect(ShopCluster.USER, ShopCluster.PASSWORD, properties);
                    PreparedStatement deposit = connection.prepareStatement("SELECT * FROM deposit(?, ?)");
                    PreparedStatement listing = connection.prepareStatement("SELECT * FROM listing(?, ?, ?)")) {
                BigDecimal before = new BigDecimal(cluster.query(0, "SELECT balance FROM account WHERE id = 12"));
                for (int i = 1; i <= 6; i++) {
                    deposit.setInt(1, 12);
                    deposit.setBigDecimal(2, new BigDecimal("0.25"));
                    try (ResultSet rows = deposit.executeQuery()) {
                        assertTrue(rows.next());
                        assertEquals(
                                before.add(new BigDecimal("0.25").multiply(BigDecimal.valueOf(i))),
                                rows.getBigDecimal(1));
                    }
                }
                listing.setInt(1, 15);
                listing.setInt(2, 16);
                listing.setTimestamp(3, Timestamp.valueOf(LocalDateTime.of(2026, 3, 4, 5, 6, 7)));
                for (int run = 0; run < 3; run++) {
                    try (ResultSet rows = listing.executeQuery()) {
                        assertTrue(rows.next());
                        assertEquals(15, rows.getInt("id"));
                        assertEquals(150_000_000_000L, rows.getLong("big"));
                        assertFalse(rows.getBoolean("rich"));
                        assertEquals(
                                LocalDateTime.of(2026, 3, 4, 5, 6, 7),
                                rows.getTimestamp("at").toLocalDateTime());
                        assertTrue(rows.next());
                        assertEquals(16, rows.getInt("id"));
                        assertFalse(rows.next());
                    }
                }
            }
        }
    }

    @Test
    void preparedCallsTakeArraysAndReportTheProcedureError() throws SQLException {
        try (Connection connection = cluster.connect();
                PreparedStatement each = connection.prepareStatement("SELECT deposit_each(?, ?)");
                PreparedStatement withdraw = connection.prepareStatement("SELECT withdraw(?, ?)")) {
            each.setArray(1, connection.createArrayOf("int4", new Integer[] {17, 18}));
            each.setArray(2, connection.createArrayOf("numeric", new BigDecimal[] {BigDecimal.ONE, BigDecimal.TEN}));
            try (ResultSet rows = each.executeQuery()) {
                assertTrue(rows.next());
                assertEquals(2, rows.getInt(1));
            }
            assertEquals("101.00", cluster.query(0, "SELECT balance FROM account WHERE id = 17"));
            assertEquals("110.00", cluster.query(0, "SELECT balance FROM account WHERE id = 18"));
            withdraw.setInt(1, 19);
            withdraw.setBigDecimal(2, new BigDecimal("1000"));
            PSQLException error = assertThrows(PSQLException.class, withdraw::executeQuery);
            assertEquals("GA002", error.getSQLState());
            assertEquals("deposit first", error.getServerErrorMessage().getHint());
            withdraw.setBigDecimal(2, new BigDecimal("1"));
            try (ResultSet rows = withdraw.executeQuery()) {
                assertTrue(rows.next());
                assertEquals(new BigDecimal("99.00"), rows.getBigDecimal(1));
            }
        }
    }

    @Test
    void aBatchOfWritingCallsIsRefusedWhole() throws SQLException {
        try (Connection connection = cluster.connect();
                PreparedStatement deposit = connection.prepareStatement("SELECT deposit(?, ?)")) {
            for (int id : new int[] {13, 14}) {
                deposit.setInt(1, id);
                deposit.setBigDecimal(2, BigDecimal.ONE);
                deposit.addBatch();
            }
            SQLException error = assertThrows(SQLException.class, deposit::executeBatch);
            SQLException cause = error.getNextException() != null ? error.getNextException() : error;
            assertEquals("0A000", cause.getSQLState(), cause.getMessage());
        }
        assertEquals("100.00", cluster.query(0, "SELECT balance FROM account WHERE id = 13"), "nothing ran");
        assertEquals("100.00", cluster.query(0, "SELECT balance FROM account WHERE id = 14"), "nothing ran");
    }

    @Test
    void garbageGetsAFatalErrorAndDisturbsNoOtherSession() throws Exception {
        try (Connection bystander = cluster.connect();
                java.net.Socket socket = new java.net.Socket(cluster.frontend.host(), cluster.frontend.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3, 4});
            socket.getOutputStream().flush();
            byte[] answer = socket.getInputStream().readAllBytes(); // until the front end closes the connection
            String text = new String(answer, StandardCharsets.UTF_8);
            assertEquals('E', (char) answer[0], text);
            assertTrue(text.contains("FATAL") && text.contains("08P01"), text);
            assertTrue(text.contains("invalid length of startup packet"), text);
            try (Statement statement = bystander.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT * FROM statement(1)")) {
                assertTrue(rows.next(), "the other session still works");
            }
        }
    }

    @Test
    void anOversizedMessageOrAnUnknownTypeAfterLoginEndsThatConnectionOnly() throws Exception {
        try (FrontendServer frontend = new FrontendServer(trusting(1024, null))) {
            frontend.start();
            try (Connection bystander = java.sql.DriverManager.getConnection(
                    "jdbc:postgresql://127.0.0.1:" + frontend.port() + "/shop?user=" + ShopCluster.USER)) {
                String unknown = answerAfterLogin(frontend.port(), out -> {
                    out.writeByte('!');
                    out.writeInt(4);
                });
                assertTrue(
                        unknown.contains("FATAL")
                                && unknown.contains("08P01")
                                && unknown.contains("invalid frontend message type 33"),
                        unknown);
                // A Query whose length field says 2,000 bytes, over this front end's maxMessageBytes of 1,024: refused
                // from its header, before the front end reads (or buffers) its body.
                String oversized = answerAfterLogin(frontend.port(), out -> {
                    out.writeByte('Q');
                    out.writeInt(2_000);
                    out.write("SELECT ".getBytes(StandardCharsets.UTF_8));
                });
                assertTrue(
                        oversized.contains("FATAL")
                                && oversized.contains("08P01")
                                && oversized.contains("invalid message length 2000")
                                && oversized.contains("at most 1024 bytes"),
                        oversized);
                try (Statement statement = bystander.createStatement();
                        ResultSet rows = statement.executeQuery("SELECT * FROM statement(1)")) {
                    assertTrue(rows.next(), "the connection opened before the bad ones still works");
                    assertEquals(1, rows.getInt(1));
                }
            }
        }
    }

    /** Logs in to a trusting front end over a raw socket, sends what {@code badInput} writes, reads until closed. */
    private static String answerAfterLogin(int port, SocketWriter badInput) throws Exception {
        try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            java.io.DataOutputStream out = new java.io.DataOutputStream(socket.getOutputStream());
            java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
            sendStartup(out);
            while (true) { // the startup answers, up to the first ReadyForQuery
                char type = (char) in.readUnsignedByte();
                in.readFully(new byte[in.readInt() - 4]);
                if (type == 'Z') {
                    break;
                }
                assertTrue(type != 'E', "the login failed");
            }
            badInput.write(out);
            out.flush();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8); // until the front end closes it
        }
    }

    /** A front end of this cluster that lets anyone in; null keeps a setting's default. */
    private static FrontendConfig trusting(Integer maxMessageBytes, Integer idleSessionTimeoutSeconds) {
        return new FrontendConfig(
                "127.0.0.1:0",
                org.gargamel.common.config.GroupSettings.inMemory(),
                directory.resolve("shop-rules.yaml").toString(),
                FrontendConfig.Authentication.TRUST,
                null,
                null,
                null,
                maxMessageBytes,
                null,
                idleSessionTimeoutSeconds);
    }

    /** A protocol 3.0 StartupMessage for user {@code anyone}. */
    private static void sendStartup(java.io.DataOutputStream out) throws java.io.IOException {
        byte[] parameters = "user\0anyone\0\0".getBytes(StandardCharsets.UTF_8);
        out.writeInt(8 + parameters.length);
        out.writeInt(196_608);
        out.write(parameters);
        out.flush();
    }

    @FunctionalInterface
    private interface SocketWriter {
        void write(java.io.DataOutputStream out) throws java.io.IOException;
    }

    @Test
    void trustLetsInWithoutPasswordAndAnIdleSessionIsClosed() throws Exception {
        try (FrontendServer trusting = new FrontendServer(trusting(null, 1))) {
            trusting.start();
            try (Connection connection = java.sql.DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:" + trusting.port() + "/shop?user=" + ShopCluster.USER);
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT * FROM statement(1)")) {
                assertTrue(rows.next(), "a call through a front end with trust authentication");
            }
            // Anyone may log in, as the role of the name it gives: one the nodes do not serve runs nothing.
            try (Connection connection = java.sql.DriverManager.getConnection(
                            "jdbc:postgresql://127.0.0.1:" + trusting.port() + "/shop?user=anyone");
                    Statement statement = connection.createStatement()) {
                SQLException refused =
                        assertThrows(SQLException.class, () -> statement.executeQuery("SELECT * FROM statement(1)"));
                assertEquals("42501", refused.getSQLState(), refused.getMessage());
                assertTrue(refused.getMessage().contains("serves no role \"anyone\""), refused.getMessage());
            }
            try (java.net.Socket socket =
                    new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), trusting.port())) {
                socket.setSoTimeout(30_000);
                sendStartup(new java.io.DataOutputStream(socket.getOutputStream()));
                // Everything until the front end closes the idle connection: the startup answers, then FATAL 57P05.
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.contains("57P05") && answer.contains("idle-session timeout"), answer);
            }
        }
    }

    @Test
    void psqlCallsThroughTheFrontEnd() throws Exception {
        String psql = onPath("psql");
        Assumptions.assumeTrue(
                psql != null,
                "psql is not on PATH: the psql test is skipped (install the PostgreSQL client to run it)");
        ProcessBuilder builder = new ProcessBuilder(
                        psql,
                        "-X",
                        "-A",
                        "-t",
                        "-h",
                        cluster.frontend.host(),
                        "-p",
                        Integer.toString(cluster.frontend.port()),
                        "-U",
                        ShopCluster.USER,
                        "-d",
                        "shop",
                        "-c",
                        "SELECT * FROM statement(2)")
                .redirectErrorStream(true);
        builder.environment().put("PGPASSWORD", ShopCluster.PASSWORD);
        builder.environment().put("PGSSLMODE", "prefer");
        Process process = builder.start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "psql did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
        assertEquals("2|owner 2|100.00", output.trim());
    }

    private static String onPath(String program) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator, -1)) {
            File file = new File(directory, program);
            if (file.canExecute()) {
                return file.getPath();
            }
        }
        return null;
    }

    private static List<String> labels(ResultSetMetaData metaData) throws SQLException {
        List<String> labels = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            labels.add(metaData.getColumnLabel(i));
        }
        return labels;
    }

    private static List<String> typeNames(ResultSetMetaData metaData) throws SQLException {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); i++) {
            names.add(metaData.getColumnTypeName(i));
        }
        return names;
    }

    /**
     * Limits for hostile clients: a user's sessions beyond maxConnectionsPerUser are refused (53300) while other users
     * log in, and a connection that does not log in within authenticationTimeoutSeconds is closed with a FATAL.
     */
    @Test
    void aUsersSessionsAreLimitedAndASilentConnectionIsClosed() throws Exception {
        try (FrontendServer limited = new FrontendServer(trusting(null, null).withLimits(new ClientLimits(2, 3, 0)))) {
            limited.start();
            String url = "jdbc:postgresql://127.0.0.1:" + limited.port() + "/shop?user=";
            try (Connection first = java.sql.DriverManager.getConnection(url + ShopCluster.USER);
                    Connection second = java.sql.DriverManager.getConnection(url + ShopCluster.USER)) {
                PSQLException third = assertThrows(
                        PSQLException.class, () -> java.sql.DriverManager.getConnection(url + ShopCluster.USER));
                assertEquals("53300", third.getSQLState(), third.getMessage());
                try (Connection other = java.sql.DriverManager.getConnection(url + "someone")) {
                    assertTrue(other.isValid(5), "another user's session is not counted with this one's");
                }
                assertTrue(first.isValid(5) && second.isValid(5));
            }
            try (java.net.Socket silent =
                    new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), limited.port())) {
                silent.setSoTimeout(30_000);
                long started = System.nanoTime();
                String answer = new String(silent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.contains("canceling authentication due to timeout"), answer);
                assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(20), "closed after about 3 s");
            }
        }
    }
}
