package org.gargamel.launcher.command;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.run.RunTarget;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * What {@code --mode} of {@code tpcc run} and {@code demo} names: a run without middleware ({@code direct}), or
 * Gargamel in one of its {@link Mode}s. The isolation and the other options are resolved against it into a
 * {@link RunTarget}.
 */
sealed interface ModeChoice permits ModeChoice.Direct, ModeChoice.Through {

    /** One PostgreSQL server, no middleware. */
    record Direct() implements ModeChoice {}

    /** Through Gargamel in {@code mode}. */
    record Through(Mode mode) implements ModeChoice {}

    /** {@code direct}, or a {@link Mode} by {@link Mode#parse}; anything else is an error naming the choices. */
    static ModeChoice parse(String name) {
        if (name != null && name.trim().toLowerCase(Locale.ROOT).equals(RunTarget.DIRECT)) {
            return new Direct();
        }
        try {
            return new Through(Mode.parse(name));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown mode '" + name + "' (expected " + choices() + ")", e);
        }
    }

    /** "gargamel, round-robin, centralized or direct". */
    static String choices() {
        return Arrays.stream(Mode.values()).map(Mode::configName).collect(Collectors.joining(", ")) + " or "
                + RunTarget.DIRECT;
    }

    /** The picocli converter of {@code --mode}. */
    final class Converter implements ITypeConverter<ModeChoice> {
        @Override
        public ModeChoice convert(String name) {
            try {
                return parse(name);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
