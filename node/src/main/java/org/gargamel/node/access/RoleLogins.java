package org.gargamel.node.access;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.config.ConfigFiles;

/**
 * The database roles this node serves (configuration keys {@code roles}, and the key that allows privileged ones as
 * {@code allowPrivileged}; docs/frontend.md, Security). A call or an ad-hoc read naming a role runs with its
 * privileges, and only a role listed here: any other is refused with 42501 before any SQL runs. A privileged role (a superuser, a member of the roles that read
 * or write the server's files, run programs or signal backends, or of this node's own login) is refused when the node
 * starts unless {@code allowPrivileged} says so ({@link RoleCheck}).
 */
public record RoleLogins(List<RoleLogin> logins, boolean allowPrivileged) {
    /** No role: calls and reads that name one are refused; the library's calls (no role) run as before. */
    public static final RoleLogins NONE = new RoleLogins(List.of(), false);

    public RoleLogins {
        logins = List.copyOf(logins);
    }

    /** Checks every entry: a valid role name, listed once, at most one of password and passwordFile. */
    public RoleLogins validate() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < logins.size(); i++) {
            RoleLogin login = logins.get(i);
            String key = "roles[" + i + "]";
            if (login == null || login.name() == null) {
                throw new ConfigException("key '" + key + ".name' is required");
            }
            try {
                ProcedureCall.checkRole(login.name());
            } catch (IllegalArgumentException e) {
                throw new ConfigException("key '" + key + ".name': " + e.getMessage());
            }
            if (!seen.add(login.name())) {
                throw new ConfigException("key '" + key + "': role " + login.name() + " is listed twice");
            }
            if (login.password() != null && login.passwordFile() != null) {
                throw new ConfigException(
                        "key '" + key + "' (role " + login.name() + ") has both 'password' and 'passwordFile'");
            }
        }
        return this;
    }

    /** The same roles with every relative {@code passwordFile} resolved beside configuration file {@code file}. */
    public RoleLogins besides(Path file) {
        return new RoleLogins(
                logins.stream()
                        .map(login -> login.passwordFile() == null
                                ? login
                                : new RoleLogin(
                                        login.name(),
                                        login.password(), // kept: validate() names a role that has both
                                        ConfigFiles.resolveBeside(file, login.passwordFile())))
                        .toList(),
                allowPrivileged);
    }

    public List<String> names() {
        return logins.stream().map(RoleLogin::name).toList();
    }

    /** Each role's password (null: none), password files read now; an unreadable file names the role and the file. */
    Map<String, String> passwords() {
        Map<String, String> passwords = new LinkedHashMap<>();
        for (RoleLogin login : logins) {
            String password = login.password();
            if (login.passwordFile() != null) {
                try {
                    List<String> lines = Files.readAllLines(Path.of(login.passwordFile()), StandardCharsets.UTF_8);
                    password = lines.isEmpty() ? "" : lines.get(0);
                } catch (IOException e) {
                    throw new ConfigException("key 'roles': cannot read the password file of role " + login.name()
                            + ", " + login.passwordFile() + ": " + e.getMessage());
                }
            }
            passwords.put(login.name(), password);
        }
        return passwords;
    }
}
