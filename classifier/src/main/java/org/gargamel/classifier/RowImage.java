package org.gargamel.classifier;

/**
 * One captured row change's JSON object ({@code {"k": 1, "c": "x"}}, as the node's capture writes it), scanned in place:
 * where the value of each of the table's primary-key columns is, and which other columns it names. Allocates nothing;
 * one instance is reused for every row (not thread-safe).
 */
final class RowImage {
    private String json;
    /** Per primary-key column of the table: where its value token starts and ends in {@link #json}; -1: absent. */
    private int[] keyStarts = new int[4];

    private int[] keyEnds = new int[4];
    /** The other members: the index of the column in the table's columns (-1: not a declared column), and its name. */
    private int[] columnIndexes = new int[32];

    private int[] nameStarts = new int[32];
    private int[] nameEnds = new int[32];
    private int columnCount;

    /**
     * Scans {@code row} against {@code key} (the table's primary-key columns) and {@code columns} (all its declared
     * columns). Returns false if {@code row} is not a JSON object (then nothing is known of it).
     */
    boolean scan(String row, String[] key, String[] columns) {
        json = row;
        if (keyStarts.length < key.length) {
            keyStarts = new int[key.length];
            keyEnds = new int[key.length];
        }
        java.util.Arrays.fill(keyStarts, 0, key.length, -1);
        columnCount = 0;
        int at = skipSpace(row, 0);
        if (at >= row.length() || row.charAt(at) != '{') {
            return false;
        }
        at = skipSpace(row, at + 1);
        if (at < row.length() && row.charAt(at) == '}') {
            return true;
        }
        while (at < row.length()) {
            if (row.charAt(at) != '"') {
                return false;
            }
            int nameStart = at + 1;
            int nameEnd = endOfString(row, at) - 1;
            at = skipSpace(row, nameEnd + 1);
            if (at >= row.length() || row.charAt(at) != ':') {
                return false;
            }
            int valueStart = skipSpace(row, at + 1);
            int valueEnd = endOfValue(row, valueStart);
            if (valueEnd < 0) {
                return false;
            }
            int keyIndex = indexOf(key, row, nameStart, nameEnd);
            if (keyIndex >= 0) {
                keyStarts[keyIndex] = valueStart;
                keyEnds[keyIndex] = valueEnd;
            } else {
                addColumn(indexOf(columns, row, nameStart, nameEnd), nameStart, nameEnd);
            }
            at = skipSpace(row, valueEnd);
            if (at >= row.length()) {
                return false;
            }
            if (row.charAt(at) == '}') {
                return true;
            }
            if (row.charAt(at) != ',') {
                return false;
            }
            at = skipSpace(row, at + 1);
        }
        return false;
    }

    String json() {
        return json;
    }

    /** Whether the value of primary-key column {@code part} is in the row. */
    boolean hasKey(int part) {
        return keyStarts[part] >= 0;
    }

    int keyStart(int part) {
        return keyStarts[part];
    }

    int keyEnd(int part) {
        return keyEnds[part];
    }

    /** How many members other than the primary key the row has. */
    int columnCount() {
        return columnCount;
    }

    /** Member {@code i}'s index among the table's declared columns, or -1. */
    int columnIndex(int i) {
        return columnIndexes[i];
    }

    String columnName(int i) {
        return json.substring(nameStarts[i], nameEnds[i]);
    }

    private void addColumn(int index, int nameStart, int nameEnd) {
        if (columnCount == columnIndexes.length) {
            columnIndexes = java.util.Arrays.copyOf(columnIndexes, columnCount * 2);
            nameStarts = java.util.Arrays.copyOf(nameStarts, columnCount * 2);
            nameEnds = java.util.Arrays.copyOf(nameEnds, columnCount * 2);
        }
        columnIndexes[columnCount] = index;
        nameStarts[columnCount] = nameStart;
        nameEnds[columnCount] = nameEnd;
        columnCount++;
    }

    private static int indexOf(String[] names, String row, int start, int end) {
        int length = end - start;
        for (int i = 0; i < names.length; i++) {
            if (names[i].length() == length && row.regionMatches(start, names[i], 0, length)) {
                return i;
            }
        }
        return -1;
    }

    private static int skipSpace(String text, int at) {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
        return at;
    }

    /** Where the JSON string starting at {@code quote} ends (just after its closing quote), or the text's length. */
    static int endOfString(String text, int quote) {
        for (int at = quote + 1; at < text.length(); at++) {
            char c = text.charAt(at);
            if (c == '\\') {
                at++;
            } else if (c == '"') {
                return at + 1;
            }
        }
        return text.length();
    }

    /** Where the JSON value starting at {@code start} ends, or -1 if it does not. */
    private static int endOfValue(String text, int start) {
        if (start >= text.length()) {
            return -1;
        }
        char first = text.charAt(start);
        if (first == '"') {
            return endOfString(text, start);
        }
        if (first == '{' || first == '[') {
            int depth = 0;
            for (int at = start; at < text.length(); at++) {
                char c = text.charAt(at);
                if (c == '"') {
                    at = endOfString(text, at) - 1;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if ((c == '}' || c == ']') && --depth == 0) {
                    return at + 1;
                }
            }
            return -1;
        }
        int at = start;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == ',' || c == '}' || Character.isWhitespace(c)) {
                break;
            }
            at++;
        }
        return at == start ? -1 : at;
    }
}
