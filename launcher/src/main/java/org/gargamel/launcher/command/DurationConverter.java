package org.gargamel.launcher.command;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations on the command line: "60s", "2m", "500ms", "1h" or a bare number of seconds; must be positive. */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /** The duration {@code text} names; an error naming the text if it is not one, or not positive. */
    public static Duration parse(String text) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        int unitStart = 0;
        while (unitStart < trimmed.length()
                && (Character.isDigit(trimmed.charAt(unitStart)) || trimmed.charAt(unitStart) == '.')) {
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
            default ->
                throw new IllegalArgumentException("unknown duration unit in '" + text + "' (use ms, s, m or h)");
        };
        if (millis <= 0) {
            throw new IllegalArgumentException("duration must be positive, got '" + text + "'");
        }
        return Duration.ofMillis(millis);
    }
}
