package org.gargamel.classifier;

/**
 * Why the rows of a fresh insert have keys no other call can produce (docs/classifier.md, Fresh inserts), so that the
 * insert conflicts with nothing and takes no key:
 * <ul>
 * <li>{@link Generated} ({@code fresh: true}): the database makes the key unique by itself. The table has no unique
 * key, or a column of each of its unique keys takes its value from a sequence or identity column, which every node
 * aligns to a residue class of its own (docs/node.md, Sequences). The live validation checks which, against the
 * catalogue, and refuses what it cannot prove;</li>
 * <li>{@link Counter} ({@code fresh: {counter: TABLE.COLUMN}}): the key is built from a counter column that the same
 * procedure updates (New-Order's {@code o_id} from {@code district.d_next_o_id}). That update must be declared: it
 * orders every pair of calls that could draw the same value.</li>
 * </ul>
 */
public sealed interface FreshKey permits FreshKey.Generated, FreshKey.Counter {
    /** The key comes from the database: a sequence, an identity column, or there is no unique key at all. */
    FreshKey GENERATED = new Generated();

    /** {@code fresh: true}. */
    record Generated() implements FreshKey {
        @Override
        public String toString() {
            return "fresh";
        }
    }

    /** {@code fresh: {counter: table.column}}: the key comes from a counter the same procedure updates. */
    record Counter(String table, String column) implements FreshKey {
        @Override
        public String toString() {
            return "fresh from counter " + table + "." + column;
        }
    }
}
