package org.gargamel.launcher.command;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The options a subcommand accepts, and the parse of its arguments. Every option is declared; anything
 * else is an error that names the option and the command, so a typo never runs with a default.
 *
 * <pre>{@code
 * CommandOptions options = new CommandOptions("tpcc load")
 *         .repeatable("--jdbc-url", "URL", "a PostgreSQL server to load")
 *         .value("--warehouses", "W", "number of warehouses")
 *         .flag("--quiet", "no progress bar");
 * CommandOptions.Parsed parsed = options.parse(args);
 * }</pre>
 */
public final class CommandOptions {
    private record Spec(String name, String valueName, boolean takesValue, boolean repeatable, String help) {
    }

    private final String command;
    private final Map<String, Spec> specs = new LinkedHashMap<>();

    public CommandOptions(String command) {
        this.command = command;
    }

    public CommandOptions value(String name, String valueName, String help) {
        return add(new Spec(name, valueName, true, false, help));
    }

    public CommandOptions repeatable(String name, String valueName, String help) {
        return add(new Spec(name, valueName, true, true, help));
    }

    public CommandOptions flag(String name, String help) {
        return add(new Spec(name, null, false, false, help));
    }

    private CommandOptions add(Spec spec) {
        if (specs.put(spec.name(), spec) != null) {
            throw new IllegalStateException("option " + spec.name() + " declared twice for " + command);
        }
        return this;
    }

    /** One line per option, for help output. */
    public String usage() {
        StringBuilder text = new StringBuilder();
        for (Spec spec : specs.values()) {
            String left = spec.name() + (spec.takesValue() ? " " + spec.valueName() : "")
                    + (spec.repeatable() ? " (repeatable)" : "");
            text.append(String.format("  %-34s %s%n", left, spec.help()));
        }
        return text.toString();
    }

    public String command() {
        return command;
    }

    /** Parses {@code --name value}, {@code --name=value} and flags; positional arguments are kept in order. */
    public Parsed parse(List<String> arguments) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < arguments.size(); i++) {
            String argument = arguments.get(i);
            if (!argument.startsWith("--")) {
                positional.add(argument);
                continue;
            }
            String name = argument;
            String inlineValue = null;
            int equals = argument.indexOf('=');
            if (equals > 0) {
                name = argument.substring(0, equals);
                inlineValue = argument.substring(equals + 1);
            }
            Spec spec = specs.get(name);
            if (spec == null) {
                throw new UsageException("unknown option '" + name + "' for '" + command + "' (known: "
                        + String.join(", ", specs.keySet()) + ")");
            }
            String value;
            if (!spec.takesValue()) {
                if (inlineValue != null) {
                    throw new UsageException("option " + name + " of '" + command + "' takes no value, got '"
                            + inlineValue + "'");
                }
                value = "true";
            } else if (inlineValue != null) {
                value = inlineValue;
            } else if (i + 1 < arguments.size() && !arguments.get(i + 1).startsWith("--")) {
                value = arguments.get(++i);
            } else {
                throw new UsageException("option " + name + " of '" + command + "' needs a value ("
                        + spec.valueName() + ")");
            }
            List<String> previous = values.computeIfAbsent(name, key -> new ArrayList<>());
            if (!previous.isEmpty() && !spec.repeatable()) {
                throw new UsageException("option " + name + " of '" + command + "' given twice ('"
                        + previous.get(0) + "' and '" + value + "')");
            }
            previous.add(value);
        }
        return new Parsed(command, values, positional);
    }

    /** Parsed arguments with typed accessors; every conversion error names the option and its value. */
    public static final class Parsed {
        private final String command;
        private final Map<String, List<String>> values;
        private final List<String> positional;

        private Parsed(String command, Map<String, List<String>> values, List<String> positional) {
            this.command = command;
            this.values = values;
            this.positional = List.copyOf(positional);
        }

        public boolean has(String name) {
            return values.containsKey(name);
        }

        public boolean flag(String name) {
            return has(name);
        }

        public List<String> all(String name) {
            return List.copyOf(values.getOrDefault(name, List.of()));
        }

        public List<String> positional() {
            return positional;
        }

        public String string(String name, String defaultValue) {
            List<String> list = values.get(name);
            return list == null ? defaultValue : list.get(0);
        }

        public String required(String name) {
            String value = string(name, null);
            if (value == null) {
                throw new UsageException("'" + command + "' needs option " + name);
            }
            return value;
        }

        public int integer(String name, int defaultValue, int min, int max) {
            return convert(name, defaultValue, text -> Integer.parseInt(text), min, max);
        }

        public long longValue(String name, long defaultValue) {
            return convert(name, defaultValue, Long::parseLong, Long.MIN_VALUE, Long.MAX_VALUE);
        }

        public double decimal(String name, double defaultValue, double min, double max) {
            String text = string(name, null);
            if (text == null) {
                return defaultValue;
            }
            double value;
            try {
                value = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new UsageException("option " + name + " of '" + command + "' expects a number, got '" + text + "'");
            }
            if (!(value >= min && value <= max)) {
                throw new UsageException("option " + name + " of '" + command + "' must be between " + min + " and "
                        + max + ", got " + text);
            }
            return value;
        }

        public Duration duration(String name, Duration defaultValue) {
            String text = string(name, null);
            if (text == null) {
                return defaultValue;
            }
            try {
                return parseDuration(text);
            } catch (IllegalArgumentException e) {
                throw new UsageException("option " + name + " of '" + command + "': " + e.getMessage());
            }
        }

        private <T extends Number & Comparable<T>> T convert(String name, T defaultValue, Function<String, T> parser,
                long min, long max) {
            String text = string(name, null);
            if (text == null) {
                return defaultValue;
            }
            T value;
            try {
                value = parser.apply(text);
            } catch (NumberFormatException e) {
                throw new UsageException("option " + name + " of '" + command + "' expects an integer, got '" + text + "'");
            }
            if (value.longValue() < min || value.longValue() > max) {
                throw new UsageException("option " + name + " of '" + command + "' must be between " + min + " and "
                        + max + ", got " + text);
            }
            return value;
        }
    }

    /** "60s", "2m", "500ms", "1h" or a bare number of seconds; must be positive. */
    public static Duration parseDuration(String text) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        int unitStart = 0;
        while (unitStart < trimmed.length() && (Character.isDigit(trimmed.charAt(unitStart))
                || trimmed.charAt(unitStart) == '.')) {
            unitStart++;
        }
        if (unitStart == 0) {
            throw new IllegalArgumentException("expected a duration such as 30s, 2m or 500ms, got '" + text + "'");
        }
        double amount;
        try {
            amount = Double.parseDouble(trimmed.substring(0, unitStart));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a duration such as 30s, 2m or 500ms, got '" + text + "'");
        }
        long millis = switch (trimmed.substring(unitStart)) {
            case "", "s" -> Math.round(amount * 1_000);
            case "ms" -> Math.round(amount);
            case "m", "min" -> Math.round(amount * 60_000);
            case "h" -> Math.round(amount * 3_600_000);
            default -> throw new IllegalArgumentException("unknown duration unit in '" + text
                    + "' (use ms, s, m or h)");
        };
        if (millis <= 0) {
            throw new IllegalArgumentException("duration must be positive, got '" + text + "'");
        }
        return Duration.ofMillis(millis);
    }
}
