package org.gargamel.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.config.GroupSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and cancel through the real pgjdbc and psql (docs/frontend.md, Authentication and security; Cancel): a front end
 * that requires TLS, with a CA and a certificate made by keytool, the SSLRequest rules, and what CancelRequest and a
 * query timeout do to a call at the cluster and to the calls not sent yet.
 */
@Tag("integration")
class FrontendSecurityTest {
    @TempDir
    static Path directory;

    private static ShopCluster cluster;
    private static TestCertificates certificates;
    private static FrontendServer tlsFrontend;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ShopCluster(1, directory);
        certificates = TestCertificates.create(directory);
        FrontendConfig config = new FrontendConfig(
                        "127.0.0.1:0",
                        GroupSettings.inMemory(),
                        directory.resolve("shop-rules.yaml").toString(),
                        FrontendConfig.Authentication.SCRAM_SHA_256,
                        List.of(new FrontendConfig.User(ShopCluster.USER, ShopCluster.PASSWORD, null)),
                        null,
                        null,
                        null,
                        null,
                        null)
                .withTls(
                        new FrontendConfig.Tls(
                                certificates.serverCertificate().toString(),
                                certificates.serverKey().toString(),
                                null),
                        true);
        tlsFrontend = new FrontendServer(config);
        tlsFrontend.start();
    }

    @AfterAll
    static void stop() {
        if (tlsFrontend != null) {
            tlsFrontend.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Connection connectTls(String sslMode, String... extra) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", ShopCluster.USER);
        properties.setProperty("password", ShopCluster.PASSWORD);
        properties.setProperty("sslmode", sslMode);
        for (int i = 0; i < extra.length; i += 2) {
            properties.setProperty(extra[i], extra[i + 1]);
        }
        return java.sql.DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:" + tlsFrontend.port() + "/shop", properties);
    }

    private static String balance(Connection connection, int id) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT * FROM statement(" + id + ")")) {
            assertTrue(rows.next());
            return rows.getString("balance");
        }
    }

    @Test
    void pgjdbcCallsOverTlsWithSslmodeRequireAndVerifyFull() throws SQLException {
        try (Connection connection = connectTls("require")) {
            assertEquals("100.00", balance(connection, 2));
        }
        try (Connection connection = connectTls(
                "verify-full", "sslrootcert", certificates.caCertificate().toString())) {
            assertEquals("100.00", balance(connection, 2));
        }
    }

    @Test
    void aClearTextClientIsRefusedWhereTlsIsRequired() {
        SQLException refused = assertThrows(SQLException.class, () -> connectTls("disable"));
        assertEquals("28000", refused.getSQLState(), refused.getMessage());
        assertTrue(refused.getMessage().contains("TLS required"), refused.getMessage());
    }

    @Test
    void psqlCallsOverTlsAndIsRefusedInClear() throws Exception {
        String psql = onPath("psql");
        Assumptions.assumeTrue(psql != null, "psql is not on PATH: the psql test is skipped");
        Process overTls = psql(psql, "require", "SELECT * FROM statement(4)");
        String output = new String(overTls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(overTls.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, overTls.exitValue(), output);
        assertEquals("4|owner 4|100.00", output.trim());

        Process inClear = psql(psql, "disable", "SELECT * FROM statement(4)");
        String refusal = new String(inClear.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(inClear.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, inClear.exitValue(), refusal);
        assertTrue(refusal.contains("TLS required"), refusal);
    }

    private static Process psql(String psql, String sslMode, String sql) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(
                        psql,
                        "-X",
                        "-A",
                        "-t",
                        "-h",
                        "127.0.0.1",
                        "-p",
                        Integer.toString(tlsFrontend.port()),
                        "-U",
                        ShopCluster.USER,
                        "-d",
                        "shop",
                        "-c",
                        sql)
                .redirectErrorStream(true);
        builder.environment().put("PGPASSWORD", ShopCluster.PASSWORD);
        builder.environment().put("PGSSLMODE", sslMode);
        return builder.start();
    }

    /** CVE-2021-23214: bytes sent after SSLRequest, before the answer, would be read in clear. */
    @Test
    void aClientSendingDataAfterItsSslRequestIsRefused() throws IOException {
        ByteArrayOutputStream packet = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(packet);
        out.writeInt(8);
        out.writeInt(80_877_103); // SSLRequest
        byte[] parameters = "user\0tester\0\0".getBytes(StandardCharsets.UTF_8);
        out.writeInt(8 + parameters.length);
        out.writeInt(196_608);
        out.write(parameters);
        String answer = exchange(tlsFrontend.port(), packet.toByteArray());
        assertTrue(answer.startsWith("E"), answer);
        assertTrue(answer.contains("08P01") && answer.contains("received unencrypted data after SSL request"), answer);
    }

    @Test
    void withoutTlsAnSslRequestIsAnsweredN() throws IOException {
        ByteArrayOutputStream packet = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(packet);
        out.writeInt(8);
        out.writeInt(80_877_103);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), cluster.frontend.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(packet.toByteArray());
            assertEquals('N', socket.getInputStream().read());
        }
    }

    /** Sends {@code bytes} and reads everything until the server closes the connection. */
    private static String exchange(int port, byte[] bytes) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * Statement.cancel while the first call of a two-call query is at the cluster: that call runs to its end (it takes
     * its two seconds), the second call is not sent (57014), nothing of it reaches the replica, and the connection goes
     * on.
     */
    @Test
    void aCancelLetsTheCallAtTheClusterFinishAndSendsNoFurtherCall() throws Exception {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            long start = System.nanoTime();
            CompletableFuture<Void> cancel = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(700);
                    statement.cancel();
                } catch (InterruptedException | SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            SQLException cancelled = assertThrows(
                    SQLException.class,
                    () -> statement.execute("SELECT slow_balance(5, 2); SELECT deposit(5, 1000.00)"));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            cancel.get(10, TimeUnit.SECONDS);
            assertEquals("57014", cancelled.getSQLState(), cancelled.getMessage());
            assertTrue(
                    cancelled.getMessage().contains("canceling statement due to user request"), cancelled.getMessage());
            assertTrue(millis >= 2000, "the call at the cluster ran to its end, " + millis + " ms");
            assertEquals("100.00", cluster.query(0, "SELECT balance FROM account WHERE id = 5"), "deposit not sent");
            assertEquals("100.00", balance(connection, 5), "the connection goes on");
        }
    }

    /** pgjdbc's query timeout sends a CancelRequest: a call already at the cluster still gives its real outcome. */
    @Test
    void aQueryTimeoutLeavesACallAtTheClusterItsRealOutcome() throws SQLException {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(1);
            long start = System.nanoTime();
            try (ResultSet rows = statement.executeQuery("SELECT slow_balance(6, 2.5)")) {
                assertTrue(rows.next());
                assertEquals(new BigDecimal("100.00"), rows.getBigDecimal(1));
            }
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 2500);
        }
    }

    /** A CancelRequest with a key no session has is closed without an answer and cancels nothing. */
    @Test
    void aCancelRequestWithAWrongKeyCancelsNothing() throws Exception {
        try (Connection connection = cluster.connect();
                Statement statement = connection.createStatement()) {
            CompletableFuture<String> forged = CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(700);
                    ByteArrayOutputStream packet = new ByteArrayOutputStream();
                    DataOutputStream out = new DataOutputStream(packet);
                    out.writeInt(16);
                    out.writeInt(80_877_102);
                    out.writeInt(12_345);
                    out.writeInt(67_890);
                    return exchange(cluster.frontend.port(), packet.toByteArray());
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            statement.execute("SELECT slow_balance(7, 1.5); SELECT deposit(7, 1.00)");
            assertEquals("", forged.get(10, TimeUnit.SECONDS), "closed without an answer");
            assertEquals("101.00", cluster.query(0, "SELECT balance FROM account WHERE id = 7"));
        }
    }

    private static String onPath(String program) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator, -1)) {
            File file = new File(entry, program);
            if (file.canExecute()) {
                return file.getPath();
            }
        }
        return null;
    }
}
