package org.gargamel.launcher.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removing what a run left on disk. */
public final class Directories {
    private Directories() {}

    /** Deletes {@code root} and everything under it, as far as it can; nothing if it does not exist. */
    public static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // Best effort: a file still being written by a dying process; the rest goes.
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // The directory went away under us.
        }
    }
}
