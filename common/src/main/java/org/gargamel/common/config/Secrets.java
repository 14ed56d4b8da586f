package org.gargamel.common.config;

import java.util.regex.Pattern;

/** Keeps passwords out of logs and error messages: every JDBC URL is masked before it is printed. */
public final class Secrets {
    /** {@code password=...} up to the next parameter, whatever the case of the key. */
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&]*");

    private Secrets() {}

    /** The URL with the value of every {@code password=} parameter replaced by {@code ***}; null stays null. */
    public static String maskUrl(String url) {
        return url == null ? null : URL_PASSWORD.matcher(url).replaceAll("$1***");
    }
}
