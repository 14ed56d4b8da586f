package org.gargamel.node.execution;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.gargamel.node.capture.Increments;

/**
 * What a node's workers share about increments (issue 18; docs/node.md, Increments): whether calls ship declared
 * increments as deltas (gargamel mode, PSI), what each procedure declares {@code add:}, and which calls the additivity
 * probe samples: the first {@code probeCalls} calls of each procedure declaring increments, counted over the node's
 * workers since it started.
 */
public final class IncrementPolicy {
    private final ClassifierRules rules;
    private final Increments increments;
    private final boolean enabled;
    private final int probeCalls;
    private final Map<String, AtomicInteger> probed = new ConcurrentHashMap<>();

    /**
     * @param enabled    whether declared increments travel as deltas (else every column as its value)
     * @param probeCalls how many calls of each procedure declaring increments are probed (0: none)
     */
    public IncrementPolicy(ClassifierRules rules, Increments increments, boolean enabled, int probeCalls) {
        this.rules = rules;
        this.increments = increments;
        this.enabled = enabled;
        this.probeCalls = probeCalls;
    }

    /** Table to the columns {@code procedure} adds to, as shipped: empty when increments are off. */
    Map<String, Set<String>> declared(String procedure) {
        return enabled ? rules.increments(procedure) : Map.of();
    }

    /** Whether this call of {@code procedure} is probed; counts it if so. */
    boolean sample(String procedure) {
        if (!enabled || probeCalls == 0 || rules.increments(procedure).isEmpty()) {
            return false;
        }
        AtomicInteger count = probed.computeIfAbsent(procedure, name -> new AtomicInteger());
        return count.get() < probeCalls && count.getAndIncrement() < probeCalls;
    }

    /** The captured changes of a call of {@code procedure}, split for checking and shipping. */
    Increments.Split split(String procedure, List<RowChange> captured) {
        return increments.split(captured, declared(procedure));
    }

    Increments increments() {
        return increments;
    }
}
