package org.gargamel.launcher.command;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.config.Isolation;
import org.gargamel.classifier.RulesException;
import org.gargamel.common.call.ProcedureCall;

/**
 * {@code gargamel classify [--rules FILE] [--isolation psi|si] CALL CALL}: whether two calls may conflict,
 * and on which row and columns. Without {@code --rules}, the TPC-C rules.
 */
public final class ClassifyCommand {
    private ClassifyCommand() {
    }

    /** Exit 0 with a CONFLICT or NO CONFLICT line; 2 with one error line for bad input. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String rulesFile = null;
        Isolation isolation = Isolation.PSI;
        List<String> calls = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--rules" -> rulesFile = value(args, ++i, "--rules");
                    case "--isolation" -> isolation = Isolation.parse(value(args, ++i, "--isolation"));
                    case "--help" -> {
                        out.println("Usage: scripts/gargamel classify [--rules FILE] [--isolation psi|si] CALL CALL");
                        out.println("  e.g. classify \"payment(1, 2, 1, 2, NULL, 'BARBARABLE', 10.00, '2026-01-01 10:00:00')\" "
                                + "\"delivery(1, 3, '2026-01-01 10:00:00')\"");
                        return 0;
                    }
                    default -> {
                        if (args[i].startsWith("--")) {
                            throw new IllegalArgumentException("unknown option '" + args[i]
                                    + "' for 'classify' (known: --rules, --isolation, --help)");
                        }
                        calls.add(args[i]);
                    }
                }
            }
            if (calls.size() != 2) {
                throw new IllegalArgumentException("'classify' needs exactly two calls, got " + calls.size());
            }
            ClassifierRules rules = rulesFile == null ? ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE) : ClassifierRules.load(Path.of(rulesFile));
            ProcedureCall first = rules.parse(calls.get(0));
            ProcedureCall second = rules.parse(calls.get(1));
            Optional<String> conflict = rules.conflict(first, second, isolation);
            out.println(conflict.map(reason -> "CONFLICT " + reason).orElse("NO CONFLICT"));
            return 0;
        } catch (RulesException | IllegalArgumentException e) {
            err.println("gargamel: error: " + e.getMessage());
            return 2;
        }
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException("option " + option + " of 'classify' needs a value");
        }
        return args[index];
    }
}
