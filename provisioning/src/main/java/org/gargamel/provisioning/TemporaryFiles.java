package org.gargamel.provisioning;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What embedded servers leave in the file system and its removal: a directory tree, and zonky's leftovers in the
 * temporary directory.
 *
 * <p>Invariant: {@link #removeZonkyLeftovers} never deletes a script that existed when this object was made (another
 * process's), nor one written in the last two seconds (another JVM may be about to run it), nor a non-empty
 * {@code embedded-pg} directory.
 */
final class TemporaryFiles {
    /** zonky's scripts that existed before this JVM started any embedded server (not ours to delete). */
    private final Set<Path> zonkyScriptsBefore;

    private TemporaryFiles(Set<Path> zonkyScriptsBefore) {
        this.zonkyScriptsBefore = zonkyScriptsBefore;
    }

    /** Remembers zonky's scripts present now: made before this JVM starts any embedded server. */
    static TemporaryFiles seenNow() {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return new TemporaryFiles(
                    files.filter(f -> f.getFileName().toString().startsWith("detect_linux_distribution_"))
                            .collect(Collectors.toSet()));
        } catch (IOException e) {
            return new TemporaryFiles(Set.of());
        }
    }

    /**
     * zonky writes a distribution-detection script into the temporary directory on every start and never deletes
     * it, and leaves an empty {@code embedded-pg} directory: remove the scripts that appeared since {@link #seenNow},
     * and the directory if it is empty (another process may be using it otherwise).
     */
    void removeZonkyLeftovers() {
        Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
        try (var files = Files.list(temporary)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("detect_linux_distribution_")
                            && f.getFileName().toString().endsWith(".sh"))
                    .toList()) {
                // Not one that predates us, and old enough that no other JVM is about to run it.
                if (!zonkyScriptsBefore.contains(file)
                        && Files.getLastModifiedTime(file).toMillis() < System.currentTimeMillis() - 2_000) {
                    Files.deleteIfExists(file);
                }
            }
            Path lockDirectory = temporary.resolve("embedded-pg");
            if (Files.isDirectory(lockDirectory)) {
                try (var entries = Files.list(lockDirectory)) {
                    if (entries.findAny().isEmpty()) {
                        Files.deleteIfExists(lockDirectory);
                    }
                }
            }
        } catch (IOException e) {
            // Best effort: a leftover script of 551 bytes is not worth failing a run for.
        }
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                    Files.deleteIfExists(directory);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
