package org.gargamel.launcher.command;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.gargamel.launcher.chaos.FaultPlan;
import org.gargamel.launcher.cluster.Acknowledgement;
import org.gargamel.launcher.run.RunRequest;
import org.gargamel.launcher.run.RunTarget;
import org.gargamel.launcher.run.TpccRun;
import org.gargamel.launcher.server.CommandContext;
import org.gargamel.launcher.server.Usage;
import org.gargamel.provisioning.PostgresBackend;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gargamel chaos}: the demo's TPC-C run on a local cluster while nodes, or their PostgreSQL servers, are killed
 * with SIGKILL and started again, one at a time; then, besides the usual checks, every New-Order acknowledged to a terminal must exist on every replica
 * and no order may have been created twice. result.json lists the faults.
 */
@Command(
        name = "chaos",
        description = {
            "TPC-C on a local cluster while its nodes or their PostgreSQL servers are killed (kill -9) and restarted; "
                    + "checked as the demo is, plus "
                    + "no acknowledged New-Order lost and none run twice",
            "Defaults: 3 embedded replicas, 2 warehouses, 10 terminals per warehouse, 2 minutes, a fault every 20 s, "
                    + "each node down 5 s."
        },
        customSynopsis = {
            "scripts/gargamel chaos [--duration D] [--interval D] [--downtime D]",
            "       [--kinds node,postgres,partition,scheduler]",
            "       [--spare NODE[,NODE]] [--fault-seed S] [--out DIR]",
            "       [every option of demo]"
        },
        defaultValueProvider = ChaosCommand.Defaults.class)
public class ChaosCommand implements Callable<Integer> {
    @Mixin
    private RunOptions options;

    @Option(
            names = "--interval",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = "20s",
            description = "time between the end of one fault and the next kill (default ${DEFAULT-VALUE})")
    private Duration interval;

    @Option(
            names = "--downtime",
            paramLabel = "D",
            converter = DurationConverter.class,
            defaultValue = "5s",
            description = "how long a killed node stays down before it is started again (default ${DEFAULT-VALUE})")
    private Duration downtime;

    @Option(
            names = "--kinds",
            paramLabel = "K[,K]",
            split = ",",
            description = "what is killed, in turn: node (a node's process), postgres (a node's PostgreSQL server; "
                    + "embedded servers only), partition (a node's network link cut and healed: each node runs in a "
                    + "network namespace of its own; root, embedded servers, one site), "
                    + "scheduler (the scheduler's process; a new one takes over), scheduler-machine (with --sites: a site "
                    + "scheduler's process, started again without its copy of the schedule log, as on a new machine), site (with "
                    + "--ack site: a whole site, its scheduler and nodes, started again from their disks); default "
                    + "node,postgres,scheduler on embedded servers (soak: and partition), else node,scheduler")
    private List<String> kinds;

    @Option(
            names = "--spare",
            paramLabel = "NODE[,NODE]",
            split = ",",
            description = "nodes no fault ever hits (node-1 ...): a soak that spares one compares its heap over the"
                    + " whole run; at least two nodes must stay targets")
    private List<String> spare;

    @Option(
            names = "--fault-seed",
            paramLabel = "S",
            description = "seed of the choice of the nodes to kill (default: from the clock)")
    private Long faultSeed;

    @Option(
            names = "--sample-every",
            paramLabel = "D",
            converter = DurationConverter.class,
            description = "sample every process's heap retained after GC, threads and open files, each node's data"
                    + " directory and the throughput this often, and write resources.json and resources.svg beside"
                    + " result.json (soak's default: 30s; chaos: not sampled)")
    private Duration sampleEvery;

    @Spec
    private CommandSpec spec;

    private final CommandContext context;

    protected ChaosCommand(CommandContext context) {
        this.context = context;
    }

    /** The run and its faults, checked; nothing started. */
    RunRequest request() {
        RunRequest request = options.request("chaos");
        if (request.target().modeName().equals("direct")) {
            throw Usage.error(spec, "chaos needs a Gargamel cluster to kill nodes of: --mode direct has none");
        }
        if (request.target() instanceof RunTarget.Gargamel through
                && through.sites() != null
                && through.sites().oneScheduler()) {
            throw Usage.error(
                    spec,
                    "chaos --sites needs an agreement among the sites' schedulers (optimistic, pessimistic, owned or"
                            + " abort-free; one-scheduler is for comparing latency; chaos without --sites kills a single"
                            + " site's scheduler)");
        }

        boolean onlySchedulers = kinds != null
                && kinds.stream()
                        .allMatch(kind ->
                                kind.trim().toLowerCase(java.util.Locale.ROOT).startsWith("scheduler"));
        boolean siteLog = request.target() instanceof RunTarget.Gargamel through
                && through.sites() != null
                && through.sites().acknowledgement() == Acknowledgement.SITE;
        boolean wholeSites = kinds != null
                && kinds.stream()
                        .allMatch(kind ->
                                kind.trim().toLowerCase(java.util.Locale.ROOT).startsWith("scheduler")
                                        || kind.trim().equalsIgnoreCase("site"));
        if (siteLog && wholeSites) {
            return request; // a site's log is its own: killing the whole site never takes another's majority
        }
        if (siteLog
                && !onlySchedulers
                && ((RunTarget.Gargamel) request.target()).sites().replicasPerSite() < 3) {
            throw Usage.error(
                    spec,
                    "chaos with --ack site kills a node of a site's own write-set log: it needs --replicas 3 per site"
                            + " (a killed node must leave its site's majority); --kinds site and scheduler need none");
        }
        if (request.replicas() < 3 && !onlySchedulers) {
            throw Usage.error(
                    spec,
                    "chaos needs at least 3 replicas (a killed node must leave a majority of the write-set log); got "
                            + request.replicas() + " (--kinds scheduler needs none)");
        }
        return request;
    }

    FaultPlan faults(RunRequest request) {
        if (interval.isZero() || interval.isNegative()) {
            throw Usage.error(spec, "--interval must be positive, got " + interval);
        }
        boolean embedded = request.backend() == PostgresBackend.EMBEDDED;
        List<FaultPlan.Kind> chosen = new ArrayList<>();
        if (kinds == null) {
            chosen.add(FaultPlan.Kind.NODE);
            if (embedded) {
                chosen.add(FaultPlan.Kind.POSTGRES);
            }
            chosen.add(FaultPlan.Kind.SCHEDULER);
            boolean oneSite = !(request.target() instanceof RunTarget.Gargamel through && through.sites() != null);
            if (SoakCommand.NAME.equals(spec.name()) && embedded && oneSite) {
                chosen.add(FaultPlan.Kind.PARTITION); // an hour of faults includes partitions (issue 43)
            }
        } else {
            for (String kind : kinds) {
                try {
                    FaultPlan.Kind parsed = FaultPlan.Kind.parse(kind);
                    if (!chosen.contains(parsed)) {
                        chosen.add(parsed);
                    }
                } catch (IllegalArgumentException e) {
                    throw Usage.error(spec, "option --kinds: " + e.getMessage());
                }
            }
        }
        if (chosen.contains(FaultPlan.Kind.SCHEDULER_MACHINE)
                && !(request.target() instanceof RunTarget.Gargamel through && through.sites() != null)) {
            throw Usage.error(
                    spec,
                    "option --kinds: scheduler-machine faults need --sites (a site scheduler's copy of the schedule "
                            + "log is lost); a single site's scheduler has none, use --kinds scheduler");
        }
        if (chosen.contains(FaultPlan.Kind.SITE)
                && !(request.target() instanceof RunTarget.Gargamel through
                        && through.sites() != null
                        && through.sites().acknowledgement() == Acknowledgement.SITE)) {
            throw Usage.error(
                    spec,
                    "option --kinds: site faults need --sites --agreement owned --ack site (with one write-set log"
                            + " across the sites, a whole site down takes its majority)");
        }
        if (chosen.contains(FaultPlan.Kind.PARTITION)
                && request.target() instanceof RunTarget.Gargamel through
                && through.sites() != null) {
            throw Usage.error(
                    spec, "option --kinds: partition faults are for a single site (its nodes in network namespaces)");
        }
        if (chosen.contains(FaultPlan.Kind.PARTITION) && !embedded) {
            throw Usage.error(
                    spec,
                    "option --kinds: partition faults need embedded servers (started reachable from the nodes' network"
                            + " namespaces); with --jdbc-url or Testcontainers leave partition out");
        }
        if (chosen.contains(FaultPlan.Kind.POSTGRES) && !embedded) {
            throw Usage.error(
                    spec,
                    "option --kinds: postgres faults need embedded servers (the run starts them again "
                            + "after the kill); with --jdbc-url or Testcontainers use --kinds node");
        }
        List<String> spared = spare == null
                ? List.of()
                : spare.stream().map(String::trim).distinct().toList();
        List<String> nodes = org.gargamel.launcher.cluster.ClusterPlan.nodeNames(request.replicas());
        for (String node : spared) {
            if (!nodes.contains(node)) {
                throw Usage.error(spec, "option --spare: no node " + node + " in this cluster (" + nodes + ")");
            }
        }
        if (!spared.isEmpty() && nodes.size() - spared.size() < 2) {
            throw Usage.error(
                    spec,
                    "option --spare: at least two nodes must stay targets (spared " + spared + " of " + nodes + ")");
        }
        return new FaultPlan(interval, downtime, faultSeed != null ? faultSeed : System.nanoTime(), chosen, spared);
    }

    /** The sampling interval asked for ({@code --sample-every}), or null: not sampled. */
    Duration sampleEvery() {
        return sampleEvery;
    }

    @Override
    public Integer call() {
        RunRequest request = request();
        FaultPlan plan = faults(request);
        TpccRun run = new TpccRun(request, context.out(), context.err()).withFaults(plan);
        if (sampleEvery != null) {
            if (sampleEvery.isZero() || sampleEvery.isNegative()) {
                throw Usage.error(spec, "--sample-every must be positive, got " + sampleEvery);
            }
            run.withResourceSampling(sampleEvery);
        }
        return run.execute();
    }

    /**
     * Where chaos's defaults differ from {@code tpcc run}'s: 2 warehouses, 2 minutes; and soak's ({@link SoakCommand},
     * which picocli gives this provider too): an hour, sampled every 30 s.
     */
    static final class Defaults implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec argument) {
            if (argument instanceof OptionSpec option) {
                boolean soak = argument.command() != null
                        && SoakCommand.NAME.equals(argument.command().name());
                return switch (option.longestName()) {
                    case "--warehouses" -> "2";
                    case "--duration" -> soak ? "60m" : "2m";
                    case "--sample-every" -> soak ? "30s" : null;
                    default -> null;
                };
            }
            return null;
        }
    }
}
