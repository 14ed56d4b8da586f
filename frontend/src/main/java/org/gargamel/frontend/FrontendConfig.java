package org.gargamel.frontend;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.ClusterSecuritySettings;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.frontend.auth.ScramVerifier;
import org.gargamel.frontend.session.ClientLimits;

/**
 * The front end's configuration file (docs/frontend.md):
 * <pre>
 * listen: 127.0.0.1:5433          # where clients connect (port 0: any free port)
 * control:                        # the control group, to reach the scheduler (as a client does)
 *   bind: 127.0.0.1:7900
 *   initialHosts: [127.0.0.1:7800]
 * rules: my-rules.yaml            # the application's rules: the procedures clients may call
 * authentication: scram-sha-256   # scram-sha-256 (default) | trust
 * users:                          # who may connect (scram-sha-256)
 *   - {name: app, verifier: "SCRAM-SHA-256$4096:...$...:..."}   # as PostgreSQL's pg_authid holds it
 *   - {name: tester, password: secret, role: shop_reader}      # or a password (kept only as a verifier); role: the
 *                                                              # database role its calls and reads run as (default:
 *                                                              # its name; docs/frontend.md, Security)
 * catalog: jdbc:postgresql://127.0.0.1:5432/app?user=app      # optional: a replica to describe calls from
 * maxConnections: 100
 * maxMessageBytes: 16777216
 * serverVersion: "15.0"           # what server_version says to clients
 * idleSessionTimeoutSeconds: 0    # a session idle this long is closed (57P05); 0: never
 * maxConnectionsPerUser: 0        # sessions of one user beyond this are refused (53300); 0: no limit of its own
 * authenticationTimeoutSeconds: 60  # a connection not logged in this long is closed
 * authenticationFailureDelayMillis: 500  # a failed login waits this long before its FATAL 28P01
 * tls:                            # optional: TLS for clients that ask (sslmode=require and up)
 *   certificate: server.crt       # PEM, the server's certificate (then its chain)
 *   privateKey: server.key        # PEM, PKCS#8 (BEGIN PRIVATE KEY), unencrypted
 *   clientCa: ca.crt              # optional: clients must present a certificate signed by this CA
 * requireTls: false               # true: clients in clear are refused (28000), as hostssl does
 * clusterSecurity: {secretFile: cluster.secret}   # optional: the groups' shared secret (docs/protocol.md)
 * </pre>
 */
public record FrontendConfig(
        String listen,
        GroupSettings control,
        String rules,
        Authentication authentication,
        List<User> users,
        String catalog,
        int maxConnections,
        int maxMessageBytes,
        String serverVersion,
        int idleSessionTimeoutSeconds,
        Tls tls,
        boolean requireTls,
        ClusterSecuritySettings clusterSecurity,
        ClientLimits limits) {
    public static final int DEFAULT_MAX_CONNECTIONS = 100;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
    public static final String DEFAULT_SERVER_VERSION = "15.0";

    /** How clients prove who they are. */
    public enum Authentication {
        SCRAM_SHA_256,
        TRUST;

        @JsonCreator
        public static Authentication parse(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "scram-sha-256" -> SCRAM_SHA_256;
                case "trust" -> TRUST;
                default ->
                    throw new IllegalArgumentException(
                            "'" + text + "' is not an authentication method (scram-sha-256 or trust)");
            };
        }
    }

    /**
     * A user: a password or a SCRAM verifier, exactly one; and the database role its calls and reads run as
     * (docs/frontend.md, Security; null: the role of its name).
     */
    public record User(String name, String password, String verifier, String role) {
        @JsonCreator
        public User(
                @JsonProperty("name") String name,
                @JsonProperty("password") String password,
                @JsonProperty("verifier") String verifier,
                @JsonProperty("role") String role) {
            this.name = name;
            this.password = password;
            this.verifier = verifier;
            this.role = role;
        }

        /** A user whose calls and reads run as the role of its name. */
        public User(String name, String password, String verifier) {
            this(name, password, verifier, null);
        }

        @Override
        public String toString() {
            return "User[" + name + "]"; // never the password
        }
    }

    /** TLS on the client connections: PEM files, relative ones beside the configuration file. */
    public record Tls(String certificate, String privateKey, String clientCa) {
        @JsonCreator
        public Tls(
                @JsonProperty("certificate") String certificate,
                @JsonProperty("privateKey") String privateKey,
                @JsonProperty("clientCa") String clientCa) {
            this.certificate = certificate;
            this.privateKey = privateKey;
            this.clientCa = clientCa;
        }

        Tls besides(Path file) {
            return new Tls(
                    ConfigFiles.resolveBeside(file, certificate),
                    ConfigFiles.resolveBeside(file, privateKey),
                    ConfigFiles.resolveBeside(file, clientCa));
        }
    }

    @JsonCreator
    public FrontendConfig(
            @JsonProperty("listen") String listen,
            @JsonProperty("control") GroupSettings control,
            @JsonProperty("rules") String rules,
            @JsonProperty("authentication") Authentication authentication,
            @JsonProperty("users") List<User> users,
            @JsonProperty("catalog") String catalog,
            @JsonProperty("maxConnections") Integer maxConnections,
            @JsonProperty("maxMessageBytes") Integer maxMessageBytes,
            @JsonProperty("serverVersion") String serverVersion,
            @JsonProperty("idleSessionTimeoutSeconds") Integer idleSessionTimeoutSeconds,
            @JsonProperty("tls") Tls tls,
            @JsonProperty("requireTls") Boolean requireTls,
            @JsonProperty("clusterSecurity") ClusterSecuritySettings clusterSecurity,
            @JsonProperty("maxConnectionsPerUser") Integer maxConnectionsPerUser,
            @JsonProperty("authenticationTimeoutSeconds") Integer authenticationTimeoutSeconds,
            @JsonProperty("authenticationFailureDelayMillis") Integer authenticationFailureDelayMillis) {
        this(
                listen,
                control,
                rules,
                authentication == null ? Authentication.SCRAM_SHA_256 : authentication,
                users == null ? List.of() : List.copyOf(users),
                catalog,
                maxConnections == null ? DEFAULT_MAX_CONNECTIONS : maxConnections,
                maxMessageBytes == null ? DEFAULT_MAX_MESSAGE_BYTES : maxMessageBytes,
                serverVersion == null ? DEFAULT_SERVER_VERSION : serverVersion,
                idleSessionTimeoutSeconds == null ? 0 : idleSessionTimeoutSeconds,
                tls,
                requireTls != null && requireTls,
                clusterSecurity,
                new ClientLimits(
                        maxConnectionsPerUser == null
                                ? ClientLimits.DEFAULTS.maxConnectionsPerUser()
                                : maxConnectionsPerUser,
                        authenticationTimeoutSeconds == null
                                ? ClientLimits.DEFAULTS.authenticationTimeoutSeconds()
                                : authenticationTimeoutSeconds,
                        authenticationFailureDelayMillis == null
                                ? ClientLimits.DEFAULTS.authenticationFailureDelayMillis()
                                : authenticationFailureDelayMillis));
    }

    /** Without TLS and cluster security. */
    public FrontendConfig(
            String listen,
            GroupSettings control,
            String rules,
            Authentication authentication,
            List<User> users,
            String catalog,
            Integer maxConnections,
            Integer maxMessageBytes,
            String serverVersion,
            Integer idleSessionTimeoutSeconds) {
        this(
                listen,
                control,
                rules,
                authentication,
                users,
                catalog,
                maxConnections,
                maxMessageBytes,
                serverVersion,
                idleSessionTimeoutSeconds,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    public static FrontendConfig read(Path file) {
        return ConfigFiles.readWithRules(
                file,
                FrontendConfig.class,
                FrontendConfig::rules,
                (config, rulesFile) -> config.withRules(rulesFile).besides(file),
                FrontendConfig::validate);
    }

    /** Relative TLS and secret files read beside the configuration file {@code file}. */
    private FrontendConfig besides(Path file) {
        return edit(draft -> {
            draft.tls = tls == null ? null : tls.besides(file);
            draft.clusterSecurity = clusterSecurity == null ? null : clusterSecurity.besides(file);
        });
    }

    /** The same front end with TLS {@code settings} (null: none) and {@code required} or not. */
    public FrontendConfig withTls(Tls settings, boolean required) {
        return edit(draft -> {
            draft.tls = settings;
            draft.requireTls = required;
        });
    }

    /** The same front end with {@code clientLimits}. */
    public FrontendConfig withLimits(ClientLimits clientLimits) {
        return edit(draft -> draft.limits = clientLimits);
    }

    /** The same front end with the cluster's secret {@code settings} (null: the groups are open). */
    public FrontendConfig withClusterSecurity(ClusterSecuritySettings settings) {
        return edit(draft -> draft.clusterSecurity = settings);
    }

    public FrontendConfig withRules(String rulesFile) {
        return edit(draft -> draft.rules = rulesFile);
    }

    /** Checks every key once, so that a running front end never meets a bad setting. */
    public FrontendConfig validate() {
        listenAddress();
        if (control == null) {
            throw new ConfigException("key 'control' is required (how the front end reaches the scheduler)");
        }
        control.toGroupConfig("control");
        ClusterSecuritySettings.requireWhereExposed(clusterSecurity, Map.of("control", control));
        if (rules == null) {
            throw new ConfigException("key 'rules' is required (the procedures clients may call)");
        }
        loadRules();
        if (authentication == Authentication.SCRAM_SHA_256 && users.isEmpty()) {
            throw new ConfigException(
                    "key 'users' needs at least one user with authentication scram-sha-256 (or say authentication: "
                            + "trust, for a front end nobody untrusted can reach)");
        }
        verifiers(new SecureRandom());
        roles();
        if (catalog != null && !catalog.startsWith("jdbc:postgresql:")) {
            throw new ConfigException("key 'catalog' must be a jdbc:postgresql: URL");
        }
        if (maxConnections < 1) {
            throw new ConfigException("key 'maxConnections' must be at least 1, got " + maxConnections);
        }
        if (limits.maxConnectionsPerUser() < 0) {
            throw new ConfigException("key 'maxConnectionsPerUser' must be 0 (no limit of its own) or more, got "
                    + limits.maxConnectionsPerUser());
        }
        if (limits.authenticationTimeoutSeconds() < 1 || limits.authenticationTimeoutSeconds() > 600) {
            throw new ConfigException("key 'authenticationTimeoutSeconds' must be between 1 and 600, got "
                    + limits.authenticationTimeoutSeconds());
        }
        if (limits.authenticationFailureDelayMillis() < 0 || limits.authenticationFailureDelayMillis() > 60_000) {
            throw new ConfigException("key 'authenticationFailureDelayMillis' must be between 0 and 60000, got "
                    + limits.authenticationFailureDelayMillis());
        }
        if (idleSessionTimeoutSeconds < 0) {
            throw new ConfigException(
                    "key 'idleSessionTimeoutSeconds' must be 0 (never) or more, got " + idleSessionTimeoutSeconds);
        }
        if (tls != null) {
            if (tls.certificate() == null || tls.privateKey() == null) {
                throw new ConfigException("key 'tls' needs 'certificate' and 'privateKey' (PEM files)");
            }
            TlsContexts.server(tls);
        }
        if (requireTls && tls == null) {
            throw new ConfigException("key 'requireTls: true' needs key 'tls' (the certificate and key to offer)");
        }
        controlGroup();
        if (maxMessageBytes < 1024) {
            throw new ConfigException("key 'maxMessageBytes' must be at least 1024, got " + maxMessageBytes);
        }
        return this;
    }

    /** Where to listen; key {@code listen}. */
    public InetSocketAddress listenAddress() {
        if (listen == null) {
            throw new ConfigException("key 'listen' is required (host:port where clients connect)");
        }
        int colon = listen.lastIndexOf(':');
        try {
            if (colon < 1) {
                throw new NumberFormatException("no port");
            }
            int port = Integer.parseInt(listen.substring(colon + 1));
            if (port < 0 || port > 65_535) {
                throw new NumberFormatException("port out of range");
            }
            return new InetSocketAddress(listen.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new ConfigException("key 'listen': '" + listen + "' is not host:port (" + e.getMessage() + ")");
        }
    }

    /** The control group's channel settings, with the cluster's secret if configured. */
    public GroupConfig controlGroup() {
        return control.toGroupConfig("control").withSecurity(ClusterSecuritySettings.loadOrNull(clusterSecurity));
    }

    public ClassifierRules loadRules() {
        return ClassifierRules.loadConfigured(rules);
    }

    /**
     * The database role of each user that names one (docs/frontend.md, Security); a user without is its own name's
     * role. An invalid role name is an error naming the user.
     */
    public Map<String, String> roles() {
        Map<String, String> roles = new LinkedHashMap<>();
        for (int i = 0; i < users.size(); i++) {
            User user = users.get(i);
            if (user.role() == null) {
                continue;
            }
            try {
                roles.put(user.name(), org.gargamel.common.call.ProcedureCall.checkRole(user.role()));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("key 'users[" + i + "].role' (user " + user.name() + "): " + e.getMessage());
            }
        }
        return roles;
    }

    /** Each user's SCRAM verifier (a password is turned into one with a fresh salt); errors name the user. */
    public Map<String, ScramVerifier> verifiers(SecureRandom random) {
        Map<String, ScramVerifier> verifiers = new LinkedHashMap<>();
        for (int i = 0; i < users.size(); i++) {
            User user = users.get(i);
            String key = "users[" + i + "]";
            if (user.name() == null || user.name().isEmpty()) {
                throw new ConfigException("key '" + key + ".name' is required");
            }
            if ((user.password() == null) == (user.verifier() == null)) {
                throw new ConfigException(
                        "key '" + key + "' (user " + user.name() + ") needs exactly one of 'password' and 'verifier'");
            }
            if (verifiers.containsKey(user.name())) {
                throw new ConfigException("key '" + key + "': user " + user.name() + " is listed twice");
            }
            try {
                verifiers.put(
                        user.name(),
                        user.verifier() != null
                                ? ScramVerifier.parse(user.verifier())
                                : ScramVerifier.fromPassword(user.password(), random));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("key '" + key + ".verifier' (user " + user.name() + "): " + e.getMessage());
            }
        }
        return verifiers;
    }

    @Override
    public String toString() {
        return "FrontendConfig[listen=" + listen + ", rules=" + rules + ", authentication=" + authentication
                + ", users=" + users + ", tls=" + tls + ", requireTls=" + requireTls + ", clusterSecurity="
                + clusterSecurity + "]";
    }

    /** A copy of this configuration with what {@code change} sets on a draft of it (the withers above). */
    private FrontendConfig edit(Consumer<Draft> change) {
        Draft draft = new Draft(this);
        change.accept(draft);
        return draft.build();
    }

    /** Every setting of a {@link FrontendConfig}, changeable: so that each wither names only what it changes. */
    private static final class Draft {
        String listen;
        GroupSettings control;
        String rules;
        Authentication authentication;
        List<User> users;
        String catalog;
        int maxConnections;
        int maxMessageBytes;
        String serverVersion;
        int idleSessionTimeoutSeconds;
        Tls tls;
        boolean requireTls;
        ClusterSecuritySettings clusterSecurity;
        ClientLimits limits;

        Draft(FrontendConfig config) {
            listen = config.listen;
            control = config.control;
            rules = config.rules;
            authentication = config.authentication;
            users = config.users;
            catalog = config.catalog;
            maxConnections = config.maxConnections;
            maxMessageBytes = config.maxMessageBytes;
            serverVersion = config.serverVersion;
            idleSessionTimeoutSeconds = config.idleSessionTimeoutSeconds;
            tls = config.tls;
            requireTls = config.requireTls;
            clusterSecurity = config.clusterSecurity;
            limits = config.limits;
        }

        FrontendConfig build() {
            return new FrontendConfig(
                    listen,
                    control,
                    rules,
                    authentication,
                    users,
                    catalog,
                    maxConnections,
                    maxMessageBytes,
                    serverVersion,
                    idleSessionTimeoutSeconds,
                    tls,
                    requireTls,
                    clusterSecurity,
                    limits);
        }
    }
}
