package org.gargamel.classifier;

import java.util.Arrays;
import java.util.List;

/**
 * One resolved write of a call: a conflict slot (a table, or for PSI a group of its columns that are always
 * written together), the key's parts as longs, and how many leading parts are known; the rest are
 * wildcards. Two keys of one slot conflict when their known parts agree as far as both are known.
 *
 * <p>A key is SHARED when the call only adds to every column of its slot (an increment, {@code add:}, in PSI):
 * two SHARED keys never conflict, since increments commute; a SHARED key conflicts with an EXCLUSIVE one (any other
 * write, a declared read, everything in SI) like two writes do.
 *
 * <p>Integers map to themselves; text, numeric and timestamps map to a 64-bit hash. A hash collision can
 * only add a conflict, never hide one, so the mapping is sound.
 */
// ArrayRecordComponent is wrong here: equals, hashCode and toString below compare the parts, and the long[] is the
// conflict index's own form of a key (WriteKeyBuffer), never written once the key is made.
public record WriteKey(
        int slot,
        @SuppressWarnings("ArrayRecordComponent") long[] parts,
        int knownParts,
        boolean shared,
        WriteRule rule,
        List<Object> values) {

    /** An EXCLUSIVE key (a plain write or a read). */
    public WriteKey(int slot, long[] parts, int knownParts, WriteRule rule, List<Object> values) {
        this(slot, parts, knownParts, false, rule, values);
    }

    public boolean conflictsWith(WriteKey other) {
        if (slot != other.slot || (shared && other.shared)) {
            return false;
        }
        int known = Math.min(knownParts, other.knownParts);
        for (int i = 0; i < known; i++) {
            if (parts[i] != other.parts[i]) {
                return false;
            }
        }
        return true;
    }

    /** e.g. {@code district(d_w_id=1, d_id=3)} or {@code customer(c_w_id=1, c_d_id=2, c_id=*)}. */
    public String describeRow() {
        StringBuilder text = new StringBuilder(rule.table().name()).append('(');
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                text.append(", ");
            }
            text.append(rule.table().key().get(i)).append('=');
            text.append(i < knownParts ? String.valueOf(values.get(i)) : "*");
        }
        return text.append(')').toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WriteKey key
                && slot == key.slot
                && knownParts == key.knownParts
                && shared == key.shared
                && Arrays.equals(parts, key.parts);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * slot + knownParts + (shared ? 1 << 16 : 0)) + Arrays.hashCode(parts);
    }

    @Override
    public String toString() {
        if (rule == null) { // a key made by hand (tests)
            return "#" + slot + Arrays.toString(Arrays.copyOf(parts, knownParts)) + (shared ? " shared" : "");
        }
        return describeRow() + "#" + slot + (shared ? " shared" : "");
    }
}
