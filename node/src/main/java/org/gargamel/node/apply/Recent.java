package org.gargamel.node.apply;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The latest {@code capacity} entries put, the oldest forgotten first: a bounded memory of what the write-set log
 * carried lately. Filled in log order only, so every replica forgets alike.
 */
final class Recent<K, V> extends LinkedHashMap<K, V> {
    private static final long serialVersionUID = 1L;

    private final int capacity;

    Recent(int capacity) {
        super(1 << 10, 0.75f, false);
        this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }
}
