package org.gargamel.launcher.command;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.RulesException;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.ExitCodes;
import org.gargamel.launcher.server.Usage;
import org.gargamel.tpcc.TpccRules;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code gargamel classify [--rules FILE] [--isolation psi|si] CALL CALL}: whether two calls may conflict, and on
 * which row and columns. Without {@code --rules}, the TPC-C rules. Exit 0 with a CONFLICT or NO CONFLICT line; 2 with
 * one error line for bad input (an unknown procedure, a call that does not parse, rules that do not load).
 */
@Command(
        name = "classify",
        description = "whether two calls may conflict under the classifier rules (TPC-C by default)",
        customSynopsis =
                "scripts/gargamel classify [--rules FILE | --tpcc-rules commutative|table61] [--isolation psi|si] CALL CALL",
        footer = {
            "  e.g. classify \"payment(1, 2, 1, 2, NULL, 'BARBARABLE', 10.00, '2026-01-01 10:00:00')\"",
            "                 \"delivery(1, 3, '2026-01-01 10:00:00')\""
        })
public final class ClassifyCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--rules", paramLabel = "FILE", description = "the classifier rules (default: TPC-C's)")
    private Path rules;

    @Option(
            names = "--tpcc-rules",
            paramLabel = "RULES",
            converter = RunOptions.TpccRulesConverter.class,
            description =
                    "without --rules, which of TPC-C's: table61 (default: the thesis's, Table 6.1) or commutative")
    private TpccRules.Variant tpccRules;

    @Option(
            names = "--isolation",
            paramLabel = "LEVEL",
            converter = IsolationConverter.class,
            defaultValue = "psi",
            description = "psi or si (default ${DEFAULT-VALUE}): the conflict granularity")
    private Isolation isolation;

    @Parameters(paramLabel = "CALL", arity = "0..*", description = "a call as psql would write it")
    private List<String> calls = new ArrayList<>();

    private final CommandContext context;

    ClassifyCommand(CommandContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (calls.size() != 2) {
            throw Usage.error(spec, "'classify' needs exactly two calls, got " + calls.size());
        }
        if (rules != null && tpccRules != null) {
            throw Usage.error(spec, "--tpcc-rules picks TPC-C's rules; it contradicts --rules");
        }
        try {
            ClassifierRules loaded = rules == null
                    ? ClassifierRules.loadResource(
                            TpccRules.class,
                            RunTarget.Gargamel.tpccRulesOrDefault(tpccRules).resource())
                    : ClassifierRules.load(rules);
            ProcedureCall first = loaded.parse(calls.get(0));
            ProcedureCall second = loaded.parse(calls.get(1));
            Optional<String> conflict = loaded.conflict(first, second, isolation);
            context.out().println(conflict.map(reason -> "CONFLICT " + reason).orElse("NO CONFLICT"));
            return ExitCodes.OK;
        } catch (RulesException e) {
            throw Usage.error(spec, e.getMessage());
        }
    }

    /** {@code --isolation}: by {@link Isolation#parse}. */
    static final class IsolationConverter implements ITypeConverter<Isolation> {
        @Override
        public Isolation convert(String text) {
            try {
                return Isolation.parse(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
