package org.gargamel.common.config;

/** A configuration file that cannot be used; the message names the file, the key and the problem. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
