package org.gargamel.launcher.costs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 40's targets ("Done when"), each checked against the figure of the bench it is about. Every figure is the
 * steady state: JIT excluded ({@link RoleCost#msPerCallLessJit}). A target whose figure the bench did not measure (no
 * run at 1 replica, no native run, no run at 3 replicas) is listed with {@code pass} null and says why.
 */
final class CostTargets {
    static final double NODE_PER_FOREIGN_WRITE_SET_MS = 0.15;
    static final double NODE_PER_EXECUTED_CALL_MS = 0.25;
    static final double SCHEDULER_PER_CALL_MS = 0.06;
    static final double CLIENT_PER_CALL_MS = 0.06;
    static final double POSTGRES_APPLY_OVER_NATIVE = 1.3;
    static final double POSTGRES_EXECUTE_OVER_NATIVE = 1.25;
    static final double JAVA_OVER_POSTGRES = 0.5;
    /** The replica count of the Java-against-PostgreSQL target. */
    static final int JAVA_OVER_POSTGRES_REPLICAS = 3;

    /**
     * One target. {@code figure}: where in costs.json the measured value is (a JSON pointer); {@code measuredMs} and
     * {@code limitMs} null where not measured; {@code pass} null then too, and {@code limit} says why.
     */
    record Target(
            String name,
            String figure,
            Integer replicas,
            Double measuredMs,
            Double limitMs,
            String limit,
            Boolean pass) {
        static Target checked(String name, String figure, int replicas, double measured, double limitMs, String limit) {
            return new Target(name, figure, replicas, measured, RoleCost.round(limitMs), limit, measured <= limitMs);
        }

        static Target unmeasured(String name, String why) {
            return new Target(name, null, null, null, null, why, null);
        }
    }

    private CostTargets() {}

    /** Every target, against the runs, the derived figures and the native run ({@code nativeCosts} null: none). */
    static List<Target> evaluate(List<GargamelCosts> runs, List<ForeignWriteSetCost> derived, NativeCosts nativeCosts) {
        List<Target> targets = new ArrayList<>();
        String nodeWriteSet = "node JVM CPU per foreign write-set";
        String postgresWriteSet = "PostgreSQL CPU per applied write-set";
        if (derived.isEmpty()) {
            String why = "needs runs at 1 replica and at more (--replicas 1,3)";
            targets.add(Target.unmeasured(nodeWriteSet, why));
            targets.add(Target.unmeasured(postgresWriteSet, why));
        }
        for (ForeignWriteSetCost cost : derived) {
            String at = "/perForeignWriteSet/" + cost.replicas();
            targets.add(Target.checked(
                    nodeWriteSet,
                    at + "/nodeJvm/msPerWriteSet",
                    cost.replicas(),
                    cost.nodeJvm().msPerWriteSet(),
                    NODE_PER_FOREIGN_WRITE_SET_MS,
                    "<= " + ms(NODE_PER_FOREIGN_WRITE_SET_MS)));
            if (nativeCosts == null) {
                targets.add(Target.unmeasured(postgresWriteSet, "needs the native run (not with --no-native)"));
            } else {
                double nativeApply = nativeCosts.perUpdateTransaction().applyMs();
                targets.add(Target.checked(
                        postgresWriteSet,
                        at + "/postgres/msPerWriteSet",
                        cost.replicas(),
                        cost.postgres().msPerWriteSet(),
                        POSTGRES_APPLY_OVER_NATIVE * nativeApply,
                        "<= " + POSTGRES_APPLY_OVER_NATIVE + " x native apply per update transaction ("
                                + ms(nativeApply) + ")"));
            }
        }
        GargamelCosts one =
                runs.stream().filter(run -> run.replicas() == 1).findFirst().orElse(null);
        String nodeCall = "node JVM CPU per executed call";
        String postgresCall = "PostgreSQL CPU per executed call";
        if (one == null) {
            targets.add(Target.unmeasured(nodeCall, "needs a run at 1 replica"));
            targets.add(Target.unmeasured(postgresCall, "needs a run at 1 replica"));
        } else {
            targets.add(Target.checked(
                    nodeCall,
                    role(1, "nodes"),
                    1,
                    one.role("nodes").msPerCallLessJit(),
                    NODE_PER_EXECUTED_CALL_MS,
                    "<= " + ms(NODE_PER_EXECUTED_CALL_MS)));
            if (nativeCosts == null) {
                targets.add(Target.unmeasured(postgresCall, "needs the native run (not with --no-native)"));
            } else {
                double nativeExecute = nativeCosts.perCall().executeMs();
                targets.add(Target.checked(
                        postgresCall,
                        role(1, GargamelCosts.POSTGRES),
                        1,
                        one.role(GargamelCosts.POSTGRES).msPerCallLessJit(),
                        POSTGRES_EXECUTE_OVER_NATIVE * nativeExecute,
                        "<= " + POSTGRES_EXECUTE_OVER_NATIVE + " x native execute per call (" + ms(nativeExecute)
                                + ")"));
            }
        }
        for (GargamelCosts run : runs) {
            targets.add(Target.checked(
                    "scheduler CPU per call",
                    role(run.replicas(), "scheduler"),
                    run.replicas(),
                    run.role("scheduler").msPerCallLessJit(),
                    SCHEDULER_PER_CALL_MS,
                    "<= " + ms(SCHEDULER_PER_CALL_MS)));
            targets.add(Target.checked(
                    "client library CPU per call",
                    role(run.replicas(), "client"),
                    run.replicas(),
                    run.role("client").msPerCallLessJit(),
                    CLIENT_PER_CALL_MS,
                    "<= " + ms(CLIENT_PER_CALL_MS)));
        }
        String javaShare = "all Java CPU per call against all PostgreSQL's";
        GargamelCosts three = runs.stream()
                .filter(run -> run.replicas() == JAVA_OVER_POSTGRES_REPLICAS)
                .findFirst()
                .orElse(null);
        if (three == null) {
            targets.add(Target.unmeasured(javaShare, "needs a run at 3 replicas"));
        } else {
            double postgres = three.role(GargamelCosts.POSTGRES).msPerCallLessJit();
            targets.add(Target.checked(
                    javaShare,
                    role(JAVA_OVER_POSTGRES_REPLICAS, GargamelCosts.ALL_JAVA),
                    JAVA_OVER_POSTGRES_REPLICAS,
                    three.role(GargamelCosts.ALL_JAVA).msPerCallLessJit(),
                    JAVA_OVER_POSTGRES * postgres,
                    "<= " + Math.round(JAVA_OVER_POSTGRES * 100) + "% of PostgreSQL's " + ms(postgres)));
        }
        return targets;
    }

    /** The JSON pointer of a role's steady-state figure at {@code replicas}. */
    private static String role(int replicas, String role) {
        return "/gargamel/" + replicas + "/roles/" + role + "/msPerCallLessJit";
    }

    private static String ms(double value) {
        return String.format(Locale.ROOT, "%.3f ms", value);
    }
}
