package org.gargamel.launcher.server;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Bad command-line input found once the arguments are parsed (a value out of range, options that contradict each
 * other): a {@link ParameterException}, which {@link CommandExecution} reports as one line {@code gargamel: error: ...}
 * with exit code 2, before the command has started anything.
 */
public final class Usage {
    private Usage() {}

    /** An error in the use of {@code spec}'s command; the message names the option and what is wrong. */
    public static ParameterException error(CommandSpec spec, String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code value} of {@code option}, or an error naming the option, the command, the bounds and the value. */
    public static int range(CommandSpec spec, String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw error(
                    spec,
                    "option " + option + " of '" + commandName(spec) + "' must be between " + min + " and " + max
                            + ", got " + value);
        }
        return value;
    }

    /** {@code value} of {@code option}, or an error naming the option, the command, the bounds and the value. */
    public static double range(CommandSpec spec, String option, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw error(
                    spec,
                    "option " + option + " of '" + commandName(spec) + "' must be between " + min + " and " + max
                            + ", got " + value);
        }
        return value;
    }

    /** The command as the user typed it, without the program: {@code tpcc run}, {@code node uninstall-capture}. */
    public static String commandName(CommandSpec spec) {
        List<String> names = new ArrayList<>();
        for (CommandSpec command = spec; command != null && command.parent() != null; command = command.parent()) {
            names.add(0, command.name());
        }
        return names.isEmpty() ? spec.name() : String.join(" ", names);
    }
}
