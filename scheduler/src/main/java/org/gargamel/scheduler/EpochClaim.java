package org.gargamel.scheduler;

import java.util.HashMap;
import java.util.Map;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Superseded;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.NameCache;

/**
 * Scheduler failover (docs/protocol.md): whether the write-set log made this scheduler the active one, its epoch (the
 * high half of its transaction ids), and whether its take-over is done: every node that applied its claim and is
 * still in the view has said hello, so none still runs a call of an earlier scheduler.
 *
 * <p>Invariants (EpochClaimTest): the first grant decides the epoch and a grant of another epoch changes nothing; the
 * take-over is done only once every granter still here, and every other member that may be a node, has said hello;
 * a notice of an epoch at or below this one's is ignored once active.
 *
 * <p>Single-threaded: owned by the scheduler's event loop; {@link #epoch()} is also read from other threads.
 */
final class EpochClaim {
    /** What a grant did. */
    enum Grant {
        /** The first grant: this scheduler is active from now on, with the grant's epoch. */
        ACTIVATED,
        /** A grant of this scheduler's epoch by another node. */
        CONFIRMED,
        /** A grant of another epoch: ignored. */
        IGNORED
    }

    /** Written on the loop, read by {@link #epoch()} from any thread: volatile. */
    private volatile boolean active;

    private volatile long epoch;
    /** The nodes that applied this scheduler's claim (they may have calls of an earlier scheduler to finish). */
    private final Map<Address, String> granters = new HashMap<>();

    private boolean done;
    /** The older scheduler this one stands by for (logged once per scheduler). */
    private Address standingByFor;

    boolean active() {
        return active;
    }

    /** This scheduler's epoch once active, 0 before. */
    long epoch() {
        return active ? epoch : 0;
    }

    /** Whether the take-over is done (see the class comment). */
    boolean done() {
        return done;
    }

    /** A node applied this scheduler's claim: the first grant makes it active, with the claim's epoch. */
    Grant granted(Address source, EpochGranted grant, View view) {
        Grant outcome = Grant.CONFIRMED;
        if (!active) {
            epoch = grant.epoch();
            active = true;
            outcome = Grant.ACTIVATED;
        } else if (grant.epoch() != epoch) {
            return Grant.IGNORED;
        }
        if (!done && (view == null || view.containsMember(source))) {
            granters.put(source, grant.nodeName());
        }
        return outcome;
    }

    /** Whether {@code notice} (the log made another scheduler active) is about a later scheduler than this one. */
    boolean supersededBy(Superseded notice) {
        return !active || notice.epoch() > epoch;
    }

    /**
     * Whether {@code view}'s oldest scheduler is another one that this scheduler has not yet said it stands by for
     * (then it is remembered, so that it is said once).
     */
    boolean standsByFor(Address first) {
        if (first.equals(standingByFor)) {
            return false;
        }
        standingByFor = first;
        return true;
    }

    /**
     * Whether the take-over became done now: this scheduler is active and every node that applied its claim and is
     * still here has said hello ({@code nodes}). A node whose grant has not come yet may still be finishing calls of
     * the earlier scheduler: every member of {@code view} other than {@code self}, a scheduler or a client counts as a
     * node until it has said hello.
     */
    boolean becameDone(View view, NodeRegistry nodes, Address self) {
        if (done || !active) {
            return false;
        }
        for (Map.Entry<Address, String> granter : granters.entrySet()) {
            boolean here = view == null || view.containsMember(granter.getKey());
            if (here && !granter.getKey().equals(nodes.address(granter.getValue()))) {
                return false;
            }
        }
        if (view != null) {
            for (Address member : view.getMembers()) {
                String name = NameCache.get(member);
                boolean other = member.equals(self)
                        || GargamelClient.SCHEDULER_NAME.equals(name)
                        || (name != null && name.startsWith(GargamelClient.CLIENT_NAME_PREFIX));
                if (!other && !nodes.has(member)) {
                    return false;
                }
            }
        }
        done = true;
        return true;
    }
}
