package org.gargamel.frontend;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import javax.net.ssl.SSLException;
import org.gargamel.common.config.ConfigException;

/** The front end's TLS context, from the PEM files of key {@code tls} (docs/frontend.md, Authentication and security). */
final class TlsContexts {
    private TlsContexts() {}

    /** Reads and checks the files now, so that a bad one stops the front end at start, naming the key. */
    static SslContext server(FrontendConfig.Tls tls) {
        requireFile(tls.certificate(), "tls.certificate");
        requireFile(tls.privateKey(), "tls.privateKey");
        SslContextBuilder builder;
        try {
            builder = SslContextBuilder.forServer(new File(tls.certificate()), new File(tls.privateKey()));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("keys 'tls.certificate' and 'tls.privateKey': " + e.getMessage()
                    + " (the certificate and the key must be PEM, the key PKCS#8 'BEGIN PRIVATE KEY' unencrypted)");
        }
        if (tls.clientCa() != null) {
            requireFile(tls.clientCa(), "tls.clientCa");
            builder.trustManager(new File(tls.clientCa())).clientAuth(ClientAuth.REQUIRE);
        }
        try {
            return builder.protocols("TLSv1.3", "TLSv1.2").build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException("key 'tls': cannot use " + tls.certificate() + " and " + tls.privateKey() + ": "
                    + e.getMessage() + " (PEM certificate, PKCS#8 PEM key, unencrypted)");
        }
    }

    private static void requireFile(String path, String key) {
        if (!new File(path).isFile()) {
            throw new ConfigException("key '" + key + "': no file " + path);
        }
    }
}
