package org.gargamel.launcher.chaos;

import java.time.Duration;
import java.util.List;

/**
 * What a chaos run does to its cluster: every {@code interval} (counted from the end of the previous fault's recovery,
 * so that two faults never overlap and a majority of the nodes is always up), one fault on a node chosen at random
 * with {@code seed}, of each of {@code kinds} in turn: its process killed with SIGKILL and started again with
 * the same command {@code downtime} later, or its PostgreSQL killed with SIGKILL (every process of the server) and
 * started again {@code downtime} later, while the node waits for it; or the scheduler's process killed and started
 * again (a new scheduler takes over: docs/protocol.md, Scheduler failover); or the node's network link cut (a
 * partition: it runs on, cut off from the scheduler, the other nodes and its database) and healed {@code downtime}
 * after the cluster went on without it. The nodes in {@code spared} are never a fault's target (a soak keeps one node
 * up for the hour, so that its heap is compared over the whole run).
 */
public record FaultPlan(Duration interval, Duration downtime, long seed, List<Kind> kinds, List<String> spared) {
    /** What is killed. */
    public enum Kind {
        /** The node's process. */
        NODE("node"),
        /** The node's PostgreSQL server (embedded servers only: the run must be able to start it again). */
        POSTGRES("postgres"),
        /** The scheduler's process (the target is the scheduler, whatever node was drawn). */
        SCHEDULER("scheduler"),
        /**
         * A site scheduler's machine (with {@code --sites}): its process killed, and started again as a new machine
         * would be, without its copy of the schedule log (docs/multisite.md, A site scheduler's failover).
         */
        SCHEDULER_MACHINE("scheduler-machine"),
        /**
         * A whole site (with {@code --sites --ack site}): its scheduler and every node of it killed at once, and
         * started again from their disks after the downtime. The other sites go on meanwhile; what the site had
         * acknowledged and not yet shipped reaches them once it is back (docs/multisite.md).
         */
        SITE("site"),
        /**
         * A partition: the node's network link taken down (it lives in a network namespace of its own: {@code
         * ClusterNetwork.Namespaced}); once the scheduler has settled its calls without it and served on for the
         * downtime, the link comes back and the node merges, catches up (or is rebuilt from a peer) and serves again.
         * Needs root and embedded servers.
         */
        PARTITION("partition");

        private final String configName;

        Kind(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        /** {@code node} or {@code postgres}; anything else is an error naming the choices. */
        public static Kind parse(String name) {
            for (Kind kind : values()) {
                if (kind.configName.equals(name.trim())) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("unknown fault kind '" + name
                    + "' (expected node, postgres, partition, scheduler, scheduler-machine or site)");
        }

        /** Whether the fault kills a scheduler (the target is a scheduler, whatever node was drawn). */
        public boolean killsAScheduler() {
            return this == SCHEDULER || this == SCHEDULER_MACHINE || this == SITE;
        }

        @Override
        public String toString() {
            return configName;
        }
    }

    public FaultPlan {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval between faults must be positive, got " + interval);
        }
        if (downtime.isNegative()) {
            throw new IllegalArgumentException("the downtime must not be negative, got " + downtime);
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("a chaos run needs at least one kind of fault");
        }
        kinds = List.copyOf(kinds);
        spared = List.copyOf(spared);
    }

    /** The nodes of {@code nodes} a fault may hit: all but the spared, in order. */
    public List<String> targets(List<String> nodes) {
        return nodes.stream().filter(node -> !spared.contains(node)).toList();
    }

    /** Every node a target. */
    public FaultPlan(Duration interval, Duration downtime, long seed, List<Kind> kinds) {
        this(interval, downtime, seed, kinds, List.of());
    }

    /** Node kills only (the plan of earlier runs). */
    public FaultPlan(Duration interval, Duration downtime, long seed) {
        this(interval, downtime, seed, List.of(Kind.NODE));
    }
}
