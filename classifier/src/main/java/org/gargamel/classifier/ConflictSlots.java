package org.gargamel.classifier;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.config.Isolation;

/**
 * The conflict slots of one set of rules: which slots (one trie of the conflict index each) every write and declared
 * read reaches in PSI and in SI, whether its keys there are SHARED, and at which prefix lengths a slot may see a
 * wildcard. Assigned once from the rules, then immutable.
 *
 * <p>Invariant: two accesses of a table share a slot iff they share a column they touch (PSI; a row in SI), and some
 * write touches it; a slot that only SHARED keys reach is left out of the conflict slots, since no key can conflict
 * there (guarded by {@code ConflictIndexPropertyTest}, which checks keys against a cell-by-cell oracle,
 * {@code ReadKeysTest} and {@code CommutativeTpccRulesTest}).
 */
final class ConflictSlots {
    /**
     * A rule's slots and, per slot, whether its keys there are SHARED (it only adds to every column of the slot). Two
     * arrays in one record: the path of every call looks a rule up once.
     */
    @SuppressWarnings("ArrayRecordComponent") // built once, never written, never compared
    record RuleSlots(int[] slots, boolean[] shared) {
        static final RuleSlots NONE = new RuleSlots(new int[0], new boolean[0]);

        static RuleSlots exclusive(int slot) {
            return new RuleSlots(new int[] {slot}, new boolean[1]);
        }
    }

    /**
     * Per write rule: its PSI slots (one per column group it touches) and its SI slot (its table). By identity: a
     * rule is a record whose hashCode walks its table's columns, and these are asked on every call's path (it was
     * most of {@link ClassifierRules#writeKeys}' cost).
     */
    private final IdentityHashMap<WriteRule, RuleSlots> psiSlots = new IdentityHashMap<>();

    private final IdentityHashMap<WriteRule, RuleSlots> siSlots = new IdentityHashMap<>();
    /**
     * {@link #psiSlots} without the slots that only SHARED keys reach (columns that every rule touching them only adds
     * to): no key can conflict with such a key, so the index is spared it ({@link ClassifierRules#conflictKeys}).
     */
    private final IdentityHashMap<WriteRule, RuleSlots> psiConflictSlots = new IdentityHashMap<>();

    private final List<String> slotNames = new ArrayList<>();
    /** Per slot, the prefix lengths at which some write may put its first wildcard. */
    private final Map<Integer, Set<Integer>> wildcardDepths = new HashMap<>();

    ConflictSlots(Map<String, TableRule> tables, Map<String, ProcedureRule> procedures) {
        assignSlots(tables, procedures);
    }

    /**
     * The slots of {@code access} under {@code isolation}; for ordering ({@code conflicting}), only those that some
     * other key can conflict with.
     */
    RuleSlots of(WriteRule access, Isolation isolation, boolean conflicting) {
        return (isolation == Isolation.SI ? siSlots : conflicting ? psiConflictSlots : psiSlots).get(access);
    }

    /** Whether a call may write slot {@code slot} with exactly {@code depth} known key parts and wildcards after. */
    boolean wildcardPossible(int slot, int depth) {
        Set<Integer> depths = wildcardDepths.get(slot);
        return depths != null && depths.contains(depth);
    }

    String name(int slot) {
        return slotNames.get(slot);
    }

    int count() {
        return slotNames.size();
    }

    /**
     * PSI slots: a table's columns are cut into groups such that every write and every declared read touches whole
     * groups (the coarsest partition refined by every such column set). Two of them share a column iff they share a
     * group, so one index per group replaces one per column. A group no write touches gets no slot: reads alone cannot
     * conflict. SI slots: one per table that some keyed write touches, shared by its writes and reads.
     */
    private void assignSlots(Map<String, TableRule> tables, Map<String, ProcedureRule> procedures) {
        Map<String, List<WriteRule>> accessesByTable = new LinkedHashMap<>();
        for (ProcedureRule procedure : procedures.values()) {
            for (WriteRule write : procedure.writes()) {
                if (!write.fresh()) {
                    accessesByTable
                            .computeIfAbsent(write.table().name(), table -> new ArrayList<>())
                            .add(write);
                }
            }
        }
        for (ProcedureRule procedure : procedures.values()) {
            for (WriteRule read : procedure.reads()) {
                List<WriteRule> accesses = accessesByTable.get(read.table().name());
                if (accesses == null) {
                    psiSlots.put(read, RuleSlots.NONE); // no keyed write of this table: nothing to conflict with
                    psiConflictSlots.put(read, RuleSlots.NONE);
                    siSlots.put(read, RuleSlots.NONE);
                } else {
                    accesses.add(read);
                }
            }
        }
        for (Map.Entry<String, List<WriteRule>> entry : accessesByTable.entrySet()) {
            TableRule table = tables.get(entry.getKey());
            int siSlot = newSlot(table.name() + " (row)");
            // The group of a column is the set of writes and reads that touch it.
            Map<Set<WriteRule>, List<String>> groups = new LinkedHashMap<>();
            for (String column : table.columns()) {
                Set<WriteRule> touching = new LinkedHashSet<>();
                for (WriteRule access : entry.getValue()) {
                    if (access.touchedColumns().contains(column)) {
                        touching.add(access);
                    }
                }
                if (touching.stream().anyMatch(access -> !access.isRead())) {
                    groups.computeIfAbsent(touching, key -> new ArrayList<>()).add(column);
                }
            }
            Map<WriteRule, List<Integer>> slots = new LinkedHashMap<>();
            Map<WriteRule, List<Boolean>> modes = new LinkedHashMap<>();
            Set<Integer> sharedOnly = new HashSet<>();
            for (Map.Entry<Set<WriteRule>, List<String>> group : groups.entrySet()) {
                int slot = newSlot(table.name() + group.getValue());
                boolean allShared = true;
                for (WriteRule access : group.getKey()) {
                    slots.computeIfAbsent(access, key -> new ArrayList<>()).add(slot);
                    // SHARED where it only adds: every column of the group is one it adds to (it touches them all).
                    boolean shared = access.added().containsAll(group.getValue());
                    modes.computeIfAbsent(access, key -> new ArrayList<>()).add(shared);
                    allShared &= shared;
                }
                if (allShared) {
                    sharedOnly.add(slot);
                }
            }
            for (WriteRule access : entry.getValue()) {
                siSlots.put(access, RuleSlots.exclusive(siSlot)); // SI: rows, increments are ordinary writes
                List<Integer> accessSlots = slots.getOrDefault(access, List.of());
                List<Boolean> accessModes = modes.getOrDefault(access, List.of());
                boolean[] shared = new boolean[accessModes.size()];
                for (int i = 0; i < shared.length; i++) {
                    shared[i] = accessModes.get(i);
                }
                psiSlots.put(
                        access,
                        new RuleSlots(
                                accessSlots.stream().mapToInt(Integer::intValue).toArray(), shared));
                List<Integer> conflictSlots = new ArrayList<>();
                for (int slot : accessSlots) {
                    if (!sharedOnly.contains(slot)) {
                        conflictSlots.add(slot); // some EXCLUSIVE key reaches it
                    }
                }
                boolean[] conflictShared = new boolean[conflictSlots.size()];
                for (int i = 0, j = 0; i < accessSlots.size(); i++) {
                    if (!sharedOnly.contains(accessSlots.get(i))) {
                        conflictShared[j++] = shared[i];
                    }
                }
                psiConflictSlots.put(
                        access,
                        new RuleSlots(
                                conflictSlots.stream()
                                        .mapToInt(Integer::intValue)
                                        .toArray(),
                                conflictShared));
                Set<Integer> depths = possibleWildcardDepths(access);
                for (int slot : psiSlots.get(access).slots()) {
                    wildcardDepths.computeIfAbsent(slot, key -> new HashSet<>()).addAll(depths);
                }
                wildcardDepths.computeIfAbsent(siSlot, key -> new HashSet<>()).addAll(depths);
            }
        }
    }

    /** The prefix lengths at which this write's (or read's) key may turn into wildcards: at a `*` or at a `p?`. */
    private static Set<Integer> possibleWildcardDepths(WriteRule write) {
        Set<Integer> depths = new HashSet<>();
        for (int i = 0; i < write.key().size(); i++) {
            KeyPart.Kind kind = write.key().get(i).kind();
            if (kind == KeyPart.Kind.WILDCARD) {
                depths.add(i);
                break;
            }
            if (kind == KeyPart.Kind.PARAMETER_OR_WILDCARD) {
                depths.add(i);
            }
        }
        return depths;
    }

    private int newSlot(String name) {
        slotNames.add(name);
        return slotNames.size() - 1;
    }
}
