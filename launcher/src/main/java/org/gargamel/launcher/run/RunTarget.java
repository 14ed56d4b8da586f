package org.gargamel.launcher.run;

import java.util.List;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.launcher.cluster.ChildJit;
import org.gargamel.launcher.cluster.SitesPlan;
import org.gargamel.node.NodeConfig;
import org.gargamel.tpcc.TpccRules;
import org.gargamel.tpcc.workload.DirectIsolation;

/**
 * What the terminals of a TPC-C run talk to: one PostgreSQL server directly (the baseline without middleware), or
 * Gargamel in one of its modes. Each holds only what applies to it. result.json names the target by
 * {@link #modeName()} and {@link #isolationName()}.
 */
public sealed interface RunTarget permits RunTarget.Direct, RunTarget.Gargamel {
    /** The name of {@code --mode} for a run without middleware (not a Gargamel {@link Mode}). */
    String DIRECT = "direct";

    /** {@code direct}, or the Gargamel mode's configuration name. */
    String modeName();

    /** The PostgreSQL level in direct mode, Gargamel's isolation otherwise. */
    String isolationName();

    /**
     * One PostgreSQL server, no middleware: each terminal has its own connection at {@code isolation}, and retries a
     * call up to {@code maxRetries} times after a serialization failure or deadlock.
     */
    record Direct(DirectIsolation isolation, int maxRetries) implements RunTarget {
        @Override
        public String modeName() {
            return DIRECT;
        }

        @Override
        public String isolationName() {
            return isolation.cliName();
        }
    }

    /** How the terminals of a run through Gargamel call the procedures. */
    enum Client {
        /** The client library ({@code GargamelClient}), one session per terminal. */
        LIBRARY("library"),
        /** pgjdbc through a front end (docs/frontend.md) that the run starts, one connection per terminal. */
        PGWIRE("pgwire");

        private final String cliName;

        Client(String cliName) {
            this.cliName = cliName;
        }

        public String cliName() {
            return cliName;
        }

        public static Client parse(String text) {
            for (Client client : values()) {
                if (client.cliName.equals(text)) {
                    return client;
                }
            }
            throw new IllegalArgumentException("'" + text + "' is not a client (library or pgwire)");
        }
    }

    /** The client of a run through Gargamel ({@link Client#cliName}); null without middleware. */
    default String clientName() {
        return null;
    }

    /**
     * The kit's rules the cluster classifies with ({@code --tpcc-rules}: table61 or commutative); null without
     * middleware, or for a cluster that already ran before this run joined it (its own configuration decides).
     */
    default String tpccRulesName() {
        return null;
    }

    /**
     * Gargamel in {@code mode} and {@code isolation} with {@code workers} workers per node, started here; or, when
     * {@code schedulers} (HOST:PORT each) are given, a cluster that already runs, joined through any of its schedulers
     * by a client listening on {@code bind}. The terminals call through {@code client}; a cluster started here
     * classifies with the kit's rules {@code tpccRules} ({@code --tpcc-rules}), and its scheduler and node JVMs
     * compile with {@code jit} ({@link ChildJit#QUICK_START} for every command but {@code bench costs}).
     */
    record Gargamel(
            Mode mode,
            Isolation isolation,
            int workers,
            List<String> schedulers,
            String bind,
            Client client,
            TpccRules.Variant tpccRules,
            int appliers,
            int applyGroup,
            SitesPlan sites,
            ChildJit jit)
            implements RunTarget {
        public Gargamel {
            schedulers = List.copyOf(schedulers);
            java.util.Objects.requireNonNull(jit, "jit");
        }

        /** This target, its cluster's scheduler and node JVMs compiling with {@code compilers}. */
        public Gargamel withJit(ChildJit compilers) {
            return new Gargamel(
                    mode,
                    isolation,
                    workers,
                    schedulers,
                    bind,
                    client,
                    tpccRules,
                    appliers,
                    applyGroup,
                    sites,
                    compilers);
        }

        /**
         * The kit's rules a run uses unless told: the thesis's (Table 6.1). The commutative rules (increments, issue 18)
         * measured within 15% of them in tpmC on this 2-core machine, either way (docs/results.md, Increments).
         */
        public static final TpccRules.Variant DEFAULT_TPCC_RULES = TpccRules.Variant.TABLE61;

        /** {@code --tpcc-rules} as given, or {@link #DEFAULT_TPCC_RULES} when it was not (null). */
        public static TpccRules.Variant tpccRulesOrDefault(TpccRules.Variant given) {
            return given == null ? DEFAULT_TPCC_RULES : given;
        }

        /** With the kit's default rules. */
        public Gargamel(
                Mode mode, Isolation isolation, int workers, List<String> schedulers, String bind, Client client) {
            this(mode, isolation, workers, schedulers, bind, client, DEFAULT_TPCC_RULES);
        }

        /** With the kit's rules {@code tpccRules}, each node applying with one connection. */
        public Gargamel(
                Mode mode,
                Isolation isolation,
                int workers,
                List<String> schedulers,
                String bind,
                Client client,
                TpccRules.Variant tpccRules) {
            this(
                    mode,
                    isolation,
                    workers,
                    schedulers,
                    bind,
                    client,
                    tpccRules,
                    1,
                    NodeConfig.DEFAULT_APPLY_GROUP,
                    null,
                    ChildJit.QUICK_START);
        }

        /** Through the client library. */
        public Gargamel(Mode mode, Isolation isolation, int workers, List<String> schedulers, String bind) {
            this(mode, isolation, workers, schedulers, bind, Client.LIBRARY);
        }

        @Override
        public String clientName() {
            return client.cliName();
        }

        @Override
        public String tpccRulesName() {
            return joinsRunningCluster() ? null : tpccRules.cliName();
        }

        @Override
        public String modeName() {
            return mode.configName();
        }

        @Override
        public String isolationName() {
            return isolation.configName();
        }

        /** Whether the run joins a cluster that already runs instead of starting one. */
        public boolean joinsRunningCluster() {
            return !schedulers.isEmpty();
        }
    }
}
