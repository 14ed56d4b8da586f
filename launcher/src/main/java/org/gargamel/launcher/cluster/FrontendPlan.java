package org.gargamel.launcher.cluster;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * The front end a local cluster starts (docs/frontend.md): listening on {@code host}:{@code port} (a free one when 0),
 * letting in {@code user} with {@code password} by SCRAM-SHA-256, or anyone when {@code password} is null
 * (authentication trust); statements are described from the catalogue of {@code catalog} (a replica's JDBC URL).
 */
public record FrontendPlan(String host, int port, String user, String password, String catalog) {
    /** The database name clients give; the front end serves the cluster whatever they name. */
    public static final String DATABASE = "gargamel";

    public FrontendPlan {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " is not a TCP port");
        }
        if (user == null || user.isEmpty()) {
            throw new IllegalArgumentException("a front end needs a user name");
        }
    }

    private static final String PASSWORD_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

    /** A fresh password of 20 letters and digits (about 116 bits), safe in a URI as it is. */
    public static String newPassword() {
        SecureRandom random = new SecureRandom();
        StringBuilder password = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            password.append(PASSWORD_ALPHABET.charAt(random.nextInt(PASSWORD_ALPHABET.length())));
        }
        return password.toString();
    }

    public boolean trust() {
        return password == null;
    }

    /** {@code postgresql://user[:password]@host:port/gargamel} with {@code boundPort}, as psql takes it. */
    public String uri(int boundPort, boolean withPassword) {
        String credentials = encode(user) + (withPassword && password != null ? ":" + encode(password) : "");
        return "postgresql://" + credentials + "@" + host + ":" + boundPort + "/" + DATABASE;
    }

    /** The JDBC URL of the front end on {@code boundPort} (user and password go as properties). */
    public String jdbcUrl(int boundPort) {
        return "jdbc:postgresql://" + host + ":" + boundPort + "/" + DATABASE;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public String toString() {
        return "FrontendPlan[" + host + ":" + port + ", user " + user + (trust() ? ", trust" : "") + "]";
    }
}
