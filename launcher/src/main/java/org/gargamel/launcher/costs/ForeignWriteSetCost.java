package org.gargamel.launcher.costs;

import java.util.Optional;

/**
 * What one more replica's write-sets cost a replica: the CPU of applying another replica's write-set (a foreign
 * write-set) at a replica, node JVM and PostgreSQL apart, derived from two runs of the same bench, at 1 replica and at
 * {@code replicas}. With full replication every update call's write-set is applied at every replica but the one that
 * ran it, so the CPU a call costs beyond its cost at 1 replica is what its foreign write-sets cost.
 *
 * <p>{@code writeSetsPerCall}: the foreign write-sets applied per call at {@code replicas} ({@code nodes.json}: applied
 * over executed, about (replicas - 1) × the share of update calls). Per component:
 * <ul>
 *   <li>{@code extraMsPerCall} = msPerCall(replicas) - msPerCall(1), JIT excluded;
 *   <li>{@code msPerCallPerOtherReplica} = extraMsPerCall / (replicas - 1): issue 40's reading ("3 replicas less 1,
 *       halved"), per call, read-only calls included;
 *   <li>{@code msPerWriteSet} = extraMsPerCall / writeSetsPerCall: per write-set actually applied (the one the targets
 *       take); {@code msPerWriteSetWithJit} the same with the JIT's CPU left in.
 * </ul>
 */
public record ForeignWriteSetCost(int replicas, double writeSetsPerCall, Component nodeJvm, Component postgres) {

    /** One component's figures (see the class comment). */
    public record Component(
            double extraMsPerCall, double msPerCallPerOtherReplica, double msPerWriteSet, double msPerWriteSetWithJit) {
        static Component of(RoleCost one, RoleCost many, int replicas, double writeSetsPerCall) {
            double extra = many.msPerCallLessJit() - one.msPerCallLessJit();
            double extraWithJit = many.msPerCall() - one.msPerCall();
            return new Component(
                    RoleCost.round(extra),
                    RoleCost.round(extra / (replicas - 1)),
                    RoleCost.round(writeSetsPerCall == 0 ? 0 : extra / writeSetsPerCall),
                    RoleCost.round(writeSetsPerCall == 0 ? 0 : extraWithJit / writeSetsPerCall));
        }
    }

    /** How the figures are derived, for costs.json. */
    public static final String DERIVATION = "R replicas against 1, same bench: extraMsPerCall = msPerCall(R) -"
            + " msPerCall(1) (JIT excluded: msPerCallLessJit); msPerCallPerOtherReplica = extraMsPerCall / (R - 1)"
            + " (issue 40's reading, '3 replicas less 1, halved', per call including read-only calls); msPerWriteSet ="
            + " extraMsPerCall / writeSetsPerCall, where writeSetsPerCall = applied / executed summed over the nodes of"
            + " the R-replica run (nodes.json, whole run); msPerWriteSetWithJit the same from msPerCall. nodeJvm is the"
            + " node JVMs' role, postgres every replica's PostgreSQL server.";

    /** The figures of {@code many} against {@code one}; empty unless {@code one} has 1 replica and {@code many} more. */
    public static Optional<ForeignWriteSetCost> derive(GargamelCosts one, GargamelCosts many) {
        if (one.replicas() != 1 || many.replicas() <= 1) {
            return Optional.empty();
        }
        double writeSetsPerCall = many.writeSetsPerCall();
        return Optional.of(new ForeignWriteSetCost(
                many.replicas(),
                RoleCost.round(writeSetsPerCall),
                Component.of(one.role("nodes"), many.role("nodes"), many.replicas(), writeSetsPerCall),
                Component.of(
                        one.role(GargamelCosts.POSTGRES),
                        many.role(GargamelCosts.POSTGRES),
                        many.replicas(),
                        writeSetsPerCall)));
    }
}
