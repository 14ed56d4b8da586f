package org.gargamel.launcher.command;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs one gargamel command line in this JVM and keeps its exit code and output. */
record CommandRunner(int exitCode, String out, String err) {
    static CommandRunner run(String... arguments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = org.gargamel.launcher.GargamelMain.run(arguments, outStream, errStream);
        }
        return new CommandRunner(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The last line of standard error: where the one-line error message is. */
    String errorLine() {
        String[] lines = err.strip().split("\n", -1);
        return lines[lines.length - 1];
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
}
