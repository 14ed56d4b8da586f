package org.gargamel.node.access;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A database role this node runs calls and ad-hoc reads as (key {@code roles}; docs/frontend.md, Security): its name,
 * and how the node logs in as it for reads, with a password, a file holding one (its first line; relative: beside the
 * configuration file), or neither (the server trusts the node's host for it: {@code trust}, {@code peer}, a
 * certificate).
 */
public record RoleLogin(String name, String password, String passwordFile) {
    @JsonCreator
    public RoleLogin(
            @JsonProperty("name") String name,
            @JsonProperty("password") String password,
            @JsonProperty("passwordFile") String passwordFile) {
        this.name = name;
        this.password = password;
        this.passwordFile = passwordFile;
    }

    /** A role the node logs in as without a password. */
    public static RoleLogin trusted(String name) {
        return new RoleLogin(name, null, null);
    }

    @Override
    public String toString() {
        return "RoleLogin[" + name + (passwordFile != null ? ", passwordFile=" + passwordFile : "")
                + (password != null ? ", password=***" : "") + "]"; // never the password
    }
}
