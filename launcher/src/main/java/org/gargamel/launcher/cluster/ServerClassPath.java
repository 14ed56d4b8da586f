package org.gargamel.launcher.cluster;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class path of the scheduler and node processes this launcher starts: gargamel-server.jar, which holds no TPC-C
 * kit, no embedded PostgreSQL and no Testcontainers. It is found, in this order, from the system property
 * {@value #PROPERTY}, next to the running gargamel-all.jar (both are built into launcher/target), or, when the launcher
 * runs from compiled classes (tests, an IDE), this JVM's own class path.
 */
final class ServerClassPath {
    static final String PROPERTY = "gargamel.server.jar";
    static final String JAR_NAME = "gargamel-server.jar";

    private ServerClassPath() {}

    static String get() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            if (!Files.isRegularFile(Path.of(configured))) {
                throw new IllegalStateException(
                        "system property " + PROPERTY + " names " + configured + ", which does not exist");
            }
            return configured;
        }
        Path running = runningFrom();
        if (running != null && Files.isRegularFile(running)) {
            Path sibling = running.resolveSibling(JAR_NAME);
            if (!Files.isRegularFile(sibling)) {
                throw new IllegalStateException(JAR_NAME + " is missing next to " + running + " (build both with "
                        + "./mvnw -B -DskipTests package)");
            }
            return sibling.toString();
        }
        return System.getProperty("java.class.path");
    }

    private static Path runningFrom() {
        try {
            return Path.of(ServerClassPath.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            return null;
        }
    }
}
