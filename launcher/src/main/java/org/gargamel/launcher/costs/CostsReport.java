package org.gargamel.launcher.costs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code bench costs} found, as {@code costs.json} and as the table it prints. Only presents: every figure is
 * computed elsewhere ({@link GargamelCosts}, {@link ForeignWriteSetCost}, {@link NativeCosts}, {@link CostTargets}).
 *
 * <p>costs.json: {@code command}, {@code machine}, {@code startedAt}, {@code settings}, {@code jit} (the compilers of
 * each JVM and how the JIT's CPU is excluded), {@code gargamel} (by replica count: tpmC, calls, CPU per call by role
 * and the nodes' own counts), {@code perForeignWriteSet} (by replica count above 1), {@code native} (null with {@code
 * --no-native}), {@code targets} (issue 40's, each with {@code pass}), and {@code derivations} (how each figure is
 * made). Each figure a target is about also holds that target beside it, under {@code target}.
 */
final class CostsReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** How each figure is derived, for costs.json. */
    static final Map<String, String> DERIVATIONS = Map.of(
            "msPerCall",
            "CPU of each role from /proc over the measurement interval (result.json's cpu.msPerCall), per call the"
                    + " terminals finished in it (read-only and user-aborted calls included). client: the"
                    + " terminals' JVM (the client library); scheduler, nodes: their JVMs; postgres: every process of"
                    + " every replica's server; allJava: the Java roles summed",
            "jitMsPerCall",
            "the CPU of the role's JIT compiler threads (comm 'C1 CompilerThre' or 'C2 CompilerThre' in"
                    + " /proc/PID/task/TID/stat) over the same interval, thread by thread (a thread that ended in"
                    + " between counts nothing: a lower bound); msPerCallLessJit = msPerCall - jitMsPerCall, the steady"
                    + " state the targets are about",
            "perForeignWriteSet",
            ForeignWriteSetCost.DERIVATION,
            "native",
            "PostgreSQL's own logical replication on the same data (publication FOR ALL TABLES, subscription WITH"
                    + " copy_data = false; tables without a primary key given REPLICA IDENTITY FULL), the kit's"
                    + " TPC-C run directly on the publisher with the same terminals, warm-up and duration: execute ="
                    + " the publisher's processes less its walsenders over the interval; decode = the walsenders and"
                    + " apply = the whole subscriber server, from the interval's start until the subscriber confirmed"
                    + " the publisher's WAL insert position at the interval's end; per call (as the terminals count them) and"
                    + " per update transaction (committed New-Order, Payment, Delivery); executeOverApply per update"
                    + " transaction",
            "nodeStatistics",
            "from nodes.json, over the whole run: executedCalls (committed, user-aborted and read-only, each at one"
                    + " node), appliedWriteSets (other replicas' write-sets applied), writeSetsPerCall = their ratio;"
                    + " the nodes' own worker and apply thread CPU (and their PostgreSQL backends') per call and"
                    + " write-set, weighted over procedures and nodes");

    /** What the bench ran and on what, for costs.json. */
    record Header(
            String command, String machine, String startedAt, Map<String, Object> settings, Map<String, Object> jit) {}

    private final Header header;
    private final List<GargamelCosts> runs;
    private final List<ForeignWriteSetCost> derived;
    private final NativeCosts nativeCosts;
    private final List<CostTargets.Target> targets;

    CostsReport(
            Header header,
            List<GargamelCosts> runs,
            List<ForeignWriteSetCost> derived,
            NativeCosts nativeCosts,
            List<CostTargets.Target> targets) {
        this.header = header;
        this.runs = List.copyOf(runs);
        this.derived = List.copyOf(derived);
        this.nativeCosts = nativeCosts;
        this.targets = List.copyOf(targets);
    }

    /** costs.json's tree. */
    ObjectNode json() {
        ObjectNode root = JSON.createObjectNode();
        root.put("command", header.command());
        root.put("machine", header.machine());
        root.put("startedAt", header.startedAt());
        root.set("settings", JSON.valueToTree(header.settings()));
        root.set("jit", JSON.valueToTree(header.jit()));
        ObjectNode gargamel = root.putObject("gargamel");
        for (GargamelCosts run : runs) {
            ObjectNode node = gargamel.putObject(Integer.toString(run.replicas()));
            node.put("replicas", run.replicas());
            node.put("tpmC", run.tpmC());
            node.put("calls", run.calls());
            node.put("seconds", run.seconds());
            node.put("result", run.result().toString());
            ObjectNode roles = node.putObject("roles");
            run.roles().forEach((role, cost) -> roles.set(role, JSON.valueToTree(cost)));
            ObjectNode statistics = node.putObject("nodeStatistics");
            statistics.put("executedCalls", run.executedCalls());
            statistics.put("appliedWriteSets", run.appliedWriteSets());
            statistics.put("writeSetsPerCall", RoleCost.round(run.writeSetsPerCall()));
            statistics.set("workerCpuMsPerCall", JSON.valueToTree(run.workerCpuMsPerCall()));
            statistics.set("applyThreadCpuMsPerWriteSet", JSON.valueToTree(run.applyThreadCpuMsPerWriteSet()));
            statistics.set("postgresBackendCpuMsPerWriteSet", JSON.valueToTree(run.postgresBackendCpuMsPerWriteSet()));
        }
        ObjectNode perWriteSet = root.putObject("perForeignWriteSet");
        for (ForeignWriteSetCost cost : derived) {
            ObjectNode node = perWriteSet.putObject(Integer.toString(cost.replicas()));
            node.put("replicas", cost.replicas());
            node.put("against", 1);
            node.put("writeSetsPerCall", cost.writeSetsPerCall());
            node.set("nodeJvm", JSON.valueToTree(cost.nodeJvm()));
            node.set("postgres", JSON.valueToTree(cost.postgres()));
        }
        root.set("native", nativeCosts == null ? null : JSON.valueToTree(nativeCosts));
        ArrayNode list = root.putArray("targets");
        for (CostTargets.Target target : targets) {
            list.add(JSON.valueToTree(target));
            if (target.figure() != null) {
                besideItsFigure(root, target);
            }
        }
        root.set("derivations", JSON.valueToTree(new java.util.TreeMap<>(DERIVATIONS)));
        return root;
    }

    /** Puts {@code target} as {@code target} in the object that holds the figure it is about. */
    private static void besideItsFigure(ObjectNode root, CostTargets.Target target) {
        String figure = target.figure();
        JsonNode holder = root.at(figure.substring(0, figure.lastIndexOf('/')));
        if (!(holder instanceof ObjectNode object)) {
            throw new IllegalStateException("target '" + target.name() + "' names " + figure + ", not in costs.json");
        }
        ObjectNode beside = object.putObject("target");
        beside.put("name", target.name());
        beside.put("limit", target.limit());
        beside.put("limitMs", target.limitMs());
        beside.put("pass", target.pass());
    }

    void write(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), json());
    }

    /** The table printed at the end: roles by replica count, the derived figures, the native line, the targets. */
    String table() {
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                Locale.ROOT, "%nCPU per call in ms, JIT excluded (with JIT in brackets); %s%n", header.machine()));
        text.append(String.format(Locale.ROOT, "%-11s", "role"));
        for (GargamelCosts run : runs) {
            text.append(String.format(
                    Locale.ROOT, "%20s", run.replicas() + (run.replicas() == 1 ? " replica" : " replicas")));
        }
        text.append('\n');
        for (String role : roleOrder()) {
            text.append(String.format(Locale.ROOT, "%-11s", role.equals(GargamelCosts.ALL_JAVA) ? "all Java" : role));
            for (GargamelCosts run : runs) {
                RoleCost cost = run.roles().get(role);
                text.append(String.format(Locale.ROOT, "%20s", cost == null ? "-" : cell(cost)));
            }
            text.append('\n');
        }
        text.append(String.format(Locale.ROOT, "%-11s", "tpmC"));
        runs.forEach(run ->
                text.append(String.format(Locale.ROOT, "%20s", String.format(Locale.ROOT, "%,.0f", run.tpmC()))));
        text.append('\n');
        text.append(String.format(Locale.ROOT, "%-11s", "calls"));
        runs.forEach(
                run -> text.append(String.format(Locale.ROOT, "%20s", String.format(Locale.ROOT, "%,d", run.calls()))));
        text.append('\n');
        for (ForeignWriteSetCost cost : derived) {
            text.append(String.format(
                    Locale.ROOT,
                    "per foreign write-set, %d replicas against 1 (%.2f write-sets per call): node JVM %.3f ms,"
                            + " PostgreSQL %.3f ms (per call per other replica: %.3f and %.3f)%n",
                    cost.replicas(),
                    cost.writeSetsPerCall(),
                    cost.nodeJvm().msPerWriteSet(),
                    cost.postgres().msPerWriteSet(),
                    cost.nodeJvm().msPerCallPerOtherReplica(),
                    cost.postgres().msPerCallPerOtherReplica()));
        }
        if (nativeCosts != null) {
            NativeCosts.Figures call = nativeCosts.perCall();
            NativeCosts.Figures update = nativeCosts.perUpdateTransaction();
            text.append(String.format(
                    Locale.ROOT,
                    "native (PostgreSQL %s logical replication, 1 publisher + 1 subscriber): %,.0f tpmC%n"
                            + "  per call:               execute %.3f  decode %.3f  apply %.3f ms%n"
                            + "  per update transaction: execute %.3f  decode %.3f  apply %.3f ms  e/a %.1f%n"
                            + "  the subscriber caught up %d ms after the interval; its tables equal the publisher's:"
                            + " %s%n",
                    nativeCosts.serverVersion(),
                    nativeCosts.tpmC(),
                    call.executeMs(),
                    call.decodeMs(),
                    call.applyMs(),
                    update.executeMs(),
                    update.decodeMs(),
                    update.applyMs(),
                    nativeCosts.executeOverApply(),
                    nativeCosts.catchUpMs(),
                    nativeCosts.converged() ? "yes" : "NO"));
        }
        text.append("targets (issue 40; JIT excluded):\n");
        for (CostTargets.Target target : targets) {
            if (target.pass() == null) {
                text.append(
                        String.format(Locale.ROOT, "  --    %s: not measured, %s%n", target.name(), target.limit()));
            } else {
                text.append(String.format(
                        Locale.ROOT,
                        "  %-5s %s%s: %.3f ms (%s)%n",
                        target.pass() ? "PASS" : "FAIL",
                        target.name(),
                        " at " + target.replicas() + (target.replicas() == 1 ? " replica" : " replicas"),
                        target.measuredMs(),
                        target.limit()));
            }
        }
        return text.toString();
    }

    /** The roles of every run, Java roles first, then PostgreSQL, then all Java. */
    private List<String> roleOrder() {
        Set<String> roles = new LinkedHashSet<>();
        for (String role : GargamelCosts.JAVA_ROLES) {
            if (runs.stream().anyMatch(run -> run.roles().containsKey(role))) {
                roles.add(role);
            }
        }
        roles.add(GargamelCosts.POSTGRES);
        roles.add(GargamelCosts.ALL_JAVA);
        return new ArrayList<>(roles);
    }

    private static String cell(RoleCost cost) {
        return cost.jitMsPerCall() == 0
                ? String.format(Locale.ROOT, "%.3f", cost.msPerCallLessJit())
                : String.format(Locale.ROOT, "%.3f (%.3f)", cost.msPerCallLessJit(), cost.msPerCall());
    }
}
