package org.gargamel.simulator;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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

    /** How many keys in a set (the write-sets applying at a replica) lie under each prefix, and are wildcards there. */
    static final class Counts {
        private final Map<String, Integer> under = new HashMap<>();
        private final Map<String, Integer> wildcards = new HashMap<>();

        /** Adds (+1) or removes (-1) every key of {@code keys}. */
        void add(String[][] keys, int delta) {
            for (String[] key : keys) {
                int prefixes = prefixCount(key);
                for (int depth = 0; depth < prefixes; depth++) {
                    under.merge(key[depth], delta, Integer::sum);
                }
                if (isWildcard(key)) {
                    wildcards.merge(key[prefixes - 1], delta, Integer::sum);
                }
            }
        }

        /** Whether a key of {@code keys} is the same as, under, or over one counted here. */
        boolean overlaps(String[][] keys) {
            for (String[] key : keys) {
                int prefixes = prefixCount(key);
                if (under.getOrDefault(key[prefixes - 1], 0) > 0) {
                    return true;
                }
                for (int depth = 0; depth < prefixes; depth++) {
                    if (wildcards.getOrDefault(key[depth], 0) > 0) {
                        return true;
                    }
                }
            }
            return false;
        }
    }
}
