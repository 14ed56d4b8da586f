package org.gargamel.launcher.server;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import org.gargamel.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.IFactory;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Runs a tree of picocli commands with Gargamel's conventions, for both programs (gargamel-all.jar and
 * gargamel-server.jar): every command is built with the {@link CommandContext} it is given; the arguments are parsed
 * and checked before anything starts; bad usage is one line {@code gargamel: error: ...} that names the option and
 * the command (exit 2); a failure is one line naming what failed (exit 1, or 2 for a bad configuration), with the
 * stack trace only under {@code --debug}; Ctrl-C during a command that was waiting exits 130.
 */
public final class CommandExecution {
    private final CommandContext context;
    private final List<Class<? extends Exception>> explained = new ArrayList<>(List.of(CommandFailedException.class));

    public CommandExecution(CommandContext context) {
        this.context = context;
    }

    /**
     * Failures of this type carry a message that says what the user can do: it is printed alone, without the
     * exception's class and the hint to use {@code --debug}. {@link CommandFailedException} is always one.
     */
    public CommandExecution explaining(Class<? extends Exception> type) {
        explained.add(type);
        return this;
    }

    /** Parses {@code args} against {@code root}'s command tree and runs the command they name; the exit code. */
    public int execute(Object root, String... args) {
        CommandLine line = commandLine(root);
        try {
            return line.execute(args);
        } finally {
            line.getOut().flush();
            line.getErr().flush();
            context.out().flush();
        }
    }

    /** {@code root}'s command tree, built with the context and configured as {@link #execute} runs it. */
    public CommandLine commandLine(Object root) {
        CommandLine line = new CommandLine(root, new ContextFactory(context));
        line.setOut(new PrintWriter(
                new BufferedWriter(new OutputStreamWriter(context.out(), StandardCharsets.UTF_8)), true));
        line.setErr(new PrintWriter(
                new BufferedWriter(new OutputStreamWriter(context.err(), StandardCharsets.UTF_8)), true));
        line.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
        line.setUsageHelpWidth(120);
        line.setExpandAtFiles(false); // an argument starting with @ is a value, never a file of arguments
        line.registerConverter(Integer.class, CommandExecution::integer);
        line.registerConverter(Integer.TYPE, CommandExecution::integer);
        line.registerConverter(Long.class, CommandExecution::longInteger);
        line.registerConverter(Long.TYPE, CommandExecution::longInteger);
        line.registerConverter(Double.class, CommandExecution::number);
        line.registerConverter(Double.TYPE, CommandExecution::number);
        line.setParameterExceptionHandler((exception, arguments) -> {
            context.err().println("gargamel: error: " + describe(exception));
            return ExitCodes.USAGE;
        });
        line.setExecutionExceptionHandler((exception, command, parseResult) -> failed(exception, debug(parseResult)));
        configureHelp(line);
        return line;
    }

    /**
     * For a {@code main}: watches the parent process named in the environment ({@link ParentWatchdog}) while the
     * command runs; returns the exit code, {@link ExitCodes#PARENT_GONE} at once if the parent is gone already.
     */
    public static int runWatched(PrintStream out, PrintStream err, ToIntFunction<CommandContext> command) {
        ParentWatchdog watchdog;
        try {
            watchdog = ParentWatchdog.fromEnvironment();
        } catch (IllegalArgumentException e) {
            err.println("gargamel: error: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        try (watchdog) {
            if (watchdog.parentGone().isDone()) {
                return ExitCodes.PARENT_GONE;
            }
            return command.applyAsInt(new CommandContext(out, err, watchdog.parentGone()));
        } finally {
            out.flush();
        }
    }

    private int failed(Exception exception, boolean debug) {
        PrintStream err = context.err();
        if (exception instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return ExitCodes.INTERRUPTED;
        }
        int code = ExitCodes.FAILED;
        String message;
        if (exception instanceof IllegalArgumentException || exception instanceof ConfigException) {
            code = ExitCodes.USAGE;
            message = exception.getMessage();
        } else if (!(exception instanceof RuntimeException)
                || explained.stream().anyMatch(type -> type.isInstance(exception))) {
            message = exception.getMessage();
        } else {
            message = exception + (debug ? "" : " (run with --debug for the stack trace)");
        }
        err.println("gargamel: error: " + message);
        if (debug) {
            exception.printStackTrace(err);
        }
        return code;
    }

    private static boolean debug(ParseResult parseResult) {
        for (ParseResult result = parseResult; result != null; result = result.subcommand()) {
            if (result.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }

    /** The one line for bad usage: names the option (or argument) and the command, and what is wrong. */
    static String describe(ParameterException exception) {
        CommandSpec spec = exception.getCommandLine().getCommandSpec();
        String command = Usage.commandName(spec);
        if (exception instanceof UnmatchedArgumentException unmatched) {
            String argument = unmatched.getUnmatched().isEmpty()
                    ? ""
                    : unmatched.getUnmatched().get(0);
            if (argument.startsWith("-")) {
                String option = argument.contains("=") ? argument.substring(0, argument.indexOf('=')) : argument;
                return "unknown option '" + option + "' for '" + command + "' (known: "
                        + spec.options().stream()
                                .filter(o -> !o.hidden())
                                .map(OptionSpec::longestName)
                                .collect(Collectors.joining(", "))
                        + ")";
            }
            List<String> subcommands = subcommandNames(spec);
            if (!subcommands.isEmpty()) {
                return spec.parent() == null
                        ? "unknown command '" + argument + "' (run '" + spec.name() + " help')"
                        : "unknown subcommand '" + command + " " + argument + "' (expected " + choices(subcommands)
                                + ")";
            }
            return "unexpected argument '" + argument + "' for '" + command + "'";
        }
        if (exception instanceof OverwrittenOptionException overwritten) {
            return "option " + name(overwritten.getOverwritten()) + " of '" + command + "' given twice";
        }
        if (exception instanceof MissingParameterException missing
                && !missing.getMissing().isEmpty()) {
            ArgSpec argument = missing.getMissing().get(0);
            if (argument.isOption() && String.valueOf(missing.getMessage()).startsWith("Missing required option")) {
                return "'" + command + "' needs option " + name(argument);
            }
            return argument.isOption()
                    ? "option " + name(argument) + " of '" + command + "' needs a value (" + argument.paramLabel() + ")"
                    : "'" + command + "' needs " + argument.paramLabel();
        }
        if (exception.getCause() instanceof TypeConversionException conversion && exception.getArgSpec() != null) {
            return "option " + name(exception.getArgSpec()) + " of '" + command + "': " + conversion.getMessage();
        }
        return exception.getMessage();
    }

    private static String name(ArgSpec argument) {
        return argument instanceof OptionSpec option ? option.longestName() : argument.paramLabel();
    }

    private static List<String> subcommandNames(CommandSpec spec) {
        return spec.subcommands().entrySet().stream()
                .filter(entry -> entry.getKey().equals(entry.getValue().getCommandName()))
                .map(Map.Entry::getKey)
                .filter(name -> !name.equals("help"))
                .toList();
    }

    /** "load, run or check". */
    private static String choices(List<String> names) {
        if (names.size() == 1) {
            return names.get(0);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
    }

    private static int integer(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("expected an integer, got '" + text + "'");
        }
    }

    private static long longInteger(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("expected an integer, got '" + text + "'");
        }
    }

    private static double number(String text) {
        try {
            return Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("expected a number, got '" + text + "'");
        }
    }

    /**
     * Help shows the options in the order they are declared, and lists every command with its subcommands
     * ({@code tpcc run}, {@code node uninstall-capture}), so one {@code help} shows all there is; a command marked
     * hidden (a group such as {@code tpcc}) is listed by its subcommands only.
     */
    private static void configureHelp(CommandLine line) {
        line.getCommandSpec().usageMessage().sortOptions(false).commandListHeading("%nCommands:%n");
        if (!line.getSubcommands().isEmpty()) {
            line.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_COMMAND_LIST, new CommandList());
        }
        line.getSubcommands().values().stream().distinct().forEach(CommandExecution::configureHelp);
    }

    private static final class CommandList implements IHelpSectionRenderer {
        @Override
        public String render(Help help) {
            List<String[]> rows = new ArrayList<>();
            collect(help.commandSpec(), "", rows);
            int width = rows.stream().mapToInt(row -> row[0].length()).max().orElse(0);
            StringBuilder text = new StringBuilder();
            for (String[] row : rows) {
                text.append(String.format("  %-" + width + "s  %s%n", row[0], row[1]));
            }
            return text.toString();
        }

        private static void collect(CommandSpec parent, String prefix, List<String[]> rows) {
            for (Map.Entry<String, CommandLine> entry : parent.subcommands().entrySet()) {
                CommandSpec spec = entry.getValue().getCommandSpec();
                if (!entry.getKey().equals(spec.name())) {
                    continue; // an alias
                }
                String label = prefix + spec.name();
                if (!spec.usageMessage().hidden()) {
                    String[] description = spec.usageMessage().description();
                    rows.add(new String[] {label, description.length == 0 ? "" : description[0]});
                }
                collect(spec, label + " ", rows);
            }
        }
    }

    /** Builds each command with the context when it takes one ({@code XCommand(CommandContext)}). */
    private record ContextFactory(CommandContext context) implements IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            Constructor<K> constructor;
            try {
                constructor = type.getDeclaredConstructor(CommandContext.class);
            } catch (NoSuchMethodException e) {
                return CommandLine.defaultFactory().create(type);
            }
            constructor.setAccessible(true);
            return constructor.newInstance(context);
        }
    }
}
