package org.gargamel.simulator;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.function.LongPredicate;
import org.gargamel.classifier.WriteKeyBuffer;

/**
 * The rows a call's rules name, as strings the simulation can compare: a key is its prefixes, from the table (slot)
 * alone to all its known parts, so that a wildcard key (some parts not known: "every order of district 3") overlaps
 * every key under its last known prefix. A wildcard key is marked by a trailing null after its prefixes.
 */
final class RowKeys {
    private RowKeys() {}

    static String[][] of(WriteKeyBuffer keys) {
        String[][] rows = new String[keys.size()][];
        for (int k = 0; k < keys.size(); k++) {
            int known = keys.knownParts(k);
            String[] prefixes = new String[known + 1];
            StringBuilder prefix = new StringBuilder().append(keys.slot(k));
            prefixes[0] = prefix.toString();
            for (int depth = 0; depth < known; depth++) {
                prefix.append(':').append(keys.part(k, depth));
                prefixes[depth + 1] = prefix.toString();
            }
            rows[k] = known < keys.length(k) ? Arrays.copyOf(prefixes, prefixes.length + 1) : prefixes;
        }
        return rows;
    }

    static boolean isWildcard(String[] key) {
        return key[key.length - 1] == null;
    }

    static int prefixCount(String[] key) {
        return isWildcard(key) ? key.length - 1 : key.length;
    }

    /**
     * A number kept per key prefix, for the keys under it and for the wildcard keys at it: how many write-sets on
     * those rows are applying (parallel apply: added up), or the last log index that wrote them (certification: the
     * latest). Both ask the same question of a call's keys, whether one of them is the same as, under, or over a
     * marked key whose number passes a test.
     */
    static final class Marks {
        private final Map<String, Long> under = new HashMap<>();
        private final Map<String, Long> wildcards = new HashMap<>();
        private final BinaryOperator<Long> merge;

        /** {@code merge}: how a new mark combines with the one a prefix holds ({@code Long::sum}, {@code Math::max}). */
        Marks(BinaryOperator<Long> merge) {
            this.merge = merge;
        }

        /** Marks every key of {@code keys} with {@code value}. */
        void mark(String[][] keys, long value) {
            for (String[] key : keys) {
                int prefixes = prefixCount(key);
                for (int depth = 0; depth < prefixes; depth++) {
                    under.merge(key[depth], value, merge);
                }
                if (isWildcard(key)) {
                    wildcards.merge(key[prefixes - 1], value, merge);
                }
            }
        }

        /** Whether a key of {@code keys} meets a marked key whose number passes {@code test}. */
        boolean meets(String[][] keys, LongPredicate test) {
            for (String[] key : keys) {
                int prefixes = prefixCount(key);
                if (test.test(under.getOrDefault(key[prefixes - 1], 0L))) {
                    return true; // the same key, or one under this wildcard
                }
                for (int depth = 0; depth < prefixes; depth++) {
                    if (test.test(wildcards.getOrDefault(key[depth], 0L))) {
                        return true; // a wildcard over this key
                    }
                }
            }
            return false;
        }
    }
}
