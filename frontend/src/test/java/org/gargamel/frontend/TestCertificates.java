package org.gargamel.frontend;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority and a server certificate it signed (for 127.0.0.1 and localhost), made with the JDK's keytool
 * as docs/frontend.md tells a user to, and the server's key written as PKCS#8 PEM.
 */
record TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey) {
    private static final String PASSWORD = "test-store-password";

    static TestCertificates create(Path directory) throws Exception {
        Path ca = directory.resolve("ca.p12");
        Path server = directory.resolve("server.p12");
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=Gargamel test CA",
                "-ext",
                "bc:c",
                "-validity",
                "2",
                "-keystore",
                ca.toString());
        keytool(
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-validity",
                "2",
                "-keystore",
                server.toString());
        Path request = directory.resolve("server.csr");
        keytool("-certreq", "-alias", "server", "-keystore", server.toString(), "-file", request.toString());
        Path serverCertificate = directory.resolve("server.crt");
        keytool(
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-infile",
                request.toString(),
                "-outfile",
                serverCertificate.toString(),
                "-rfc",
                "-validity",
                "2",
                "-ext",
                "san=ip:127.0.0.1,dns:localhost",
                "-ext",
                "eku=serverAuth");
        Path caCertificate = directory.resolve("ca.crt");
        keytool("-exportcert", "-alias", "ca", "-keystore", ca.toString(), "-rfc", "-file", caCertificate.toString());
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(server)) {
            store.load(in, PASSWORD.toCharArray());
        }
        Key key = store.getKey("server", PASSWORD.toCharArray());
        Path serverKey = directory.resolve("server.key");
        Files.writeString(
                serverKey,
                "-----BEGIN PRIVATE KEY-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                                .encodeToString(key.getEncoded())
                        + "\n-----END PRIVATE KEY-----\n");
        return new TestCertificates(caCertificate, serverCertificate, serverKey);
    }

    private static void keytool(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        command.addAll(List.of("-storepass", PASSWORD, "-storetype", "PKCS12"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool " + arguments[0] + " failed: " + output);
        }
    }
}
