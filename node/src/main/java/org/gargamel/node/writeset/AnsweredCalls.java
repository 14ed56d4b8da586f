package org.gargamel.node.writeset;

import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.common.wire.CallOutcome;
import org.jgroups.Address;

/**
 * The outcomes the write-set log carried lately, by call (its client and call id): a call resubmitted after a
 * scheduler's failover whose first run took effect is answered from here instead of running twice (docs/protocol.md,
 * Scheduler failover). Filled by the apply loop in log order, so every replica knows the same calls; read by the
 * workers. Bounded: the resubmitted calls are the newest ones, a client's window at most.
 */
public final class AnsweredCalls {
    static final int CAPACITY = 1 << 17;

    private record Call(Address caller, long callId) {}

    private final Map<Call, CallOutcome> outcomes = new LinkedHashMap<>(1 << 10, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Call, CallOutcome> eldest) {
            return size() > CAPACITY;
        }
    };

    /** The log holds a write-set that took effect with {@code outcome} for {@code caller}'s call. */
    public synchronized void record(Address caller, CallOutcome outcome) {
        if (caller != null && outcome != null) {
            outcomes.put(new Call(caller, outcome.callId()), outcome);
        }
    }

    /** The outcome of an earlier run of {@code caller}'s call {@code callId}, or null if none took effect. */
    public synchronized CallOutcome find(Address caller, long callId) {
        return caller == null ? null : outcomes.get(new Call(caller, callId));
    }
}
