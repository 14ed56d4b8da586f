package org.gargamel.node.capture;

import java.util.List;

/** What {@link WriteSetCapture#install} covered: tables with a primary key, and insert-only tables without one. */
public record CaptureInstallation(List<String> keyedTables, List<String> insertOnlyTables) {
    public CaptureInstallation {
        keyedTables = List.copyOf(keyedTables);
        insertOnlyTables = List.copyOf(insertOnlyTables);
    }
}
