package org.gargamel.frontend.session;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A session's run-time parameters: kept by the front end, reported to the client (ParameterStatus) where PostgreSQL
 * reports them, shown and reset. They do not reach the replicas: a call runs with the replica's own settings.
 */
final class Settings {
    /** The parameters PostgreSQL reports with ParameterStatus, in its spelling. */
    static final List<String> REPORTED = List.of(
            "server_version",
            "server_encoding",
            "client_encoding",
            "application_name",
            "DateStyle",
            "IntervalStyle",
            "integer_datetimes",
            "standard_conforming_strings",
            "TimeZone",
            "is_superuser",
            "session_authorization",
            "in_hot_standby");

    private final Map<String, String> defaults = new TreeMap<>();
    private final Map<String, String> values = new TreeMap<>();
    private final Map<String, String> spelling = new LinkedHashMap<>();

    Settings(String serverVersion, String user, Map<String, String> startup) {
        define("server_version", serverVersion);
        define("server_encoding", "UTF8");
        define("client_encoding", "UTF8");
        define("application_name", "");
        define("DateStyle", "ISO, MDY");
        define("IntervalStyle", "postgres");
        define("integer_datetimes", "on");
        define("standard_conforming_strings", "on");
        define("TimeZone", "UTC");
        define("is_superuser", "off");
        define("session_authorization", user);
        define("in_hot_standby", "off");
        define("transaction_isolation", "read committed");
        define("default_transaction_isolation", "read committed");
        define("transaction_read_only", "off");
        define("extra_float_digits", "1");
        define("search_path", "\"$user\", public");
        define("statement_timeout", "0");
        define("lc_messages", "C");
        define("max_identifier_length", "63");
        startup.forEach((name, value) -> {
            if (!name.equals("user") && !name.equals("database") && !name.equals("options")) {
                defaults.put(key(name), value);
                spelling.putIfAbsent(key(name), name);
            }
        });
        values.putAll(defaults);
    }

    private void define(String name, String value) {
        defaults.put(key(name), value);
        spelling.put(key(name), name);
    }

    static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    String get(String name) {
        return values.get(key(name));
    }

    /** The name as PostgreSQL spells it (DateStyle, TimeZone). */
    String spelling(String name) {
        return spelling.getOrDefault(key(name), name);
    }

    /** Sets {@code name}; null: back to its default. Returns the value now in force. */
    String set(String name, String value) {
        String key = key(name);
        spelling.putIfAbsent(key, name);
        if (value == null) {
            String initial = defaults.get(key);
            if (initial == null) {
                values.remove(key);
            } else {
                values.put(key, initial);
            }
        } else {
            values.put(key, value);
        }
        return values.get(key);
    }

    boolean isReported(String name) {
        for (String reported : REPORTED) {
            if (reported.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** Every setting, by name. */
    Map<String, String> all() {
        Map<String, String> all = new TreeMap<>();
        values.forEach((key, value) -> all.put(spelling(key), value));
        return all;
    }

    /** Every setting back to its value at connection. */
    void resetAll() {
        values.clear();
        values.putAll(defaults);
    }
}
