package org.gargamel.launcher.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * A short fingerprint of the build a class comes from (its jar, or its classes directory in a test): the name, size
 * and time of every file of it. A snapshot of loaded data is named with the fingerprint of the loader's code, so that
 * a rebuilt loader never reuses data loaded by an older one.
 */
final class CodeFingerprint {
    private CodeFingerprint() {}

    static String of(Class<?> type) {
        try {
            Path location = Path.of(
                    type.getProtectionDomain().getCodeSource().getLocation().toURI());
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            List<Path> files;
            try (Stream<Path> walk = Files.walk(location)) {
                files = walk.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path file : files) {
                String entry = location.relativize(file) + " " + Files.size(file) + " "
                        + Files.getLastModifiedTime(file).toMillis() + "\n";
                digest.update(entry.getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 6);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fingerprint the code of " + type.getName(), e);
        } catch (URISyntaxException | NoSuchAlgorithmException | RuntimeException e) {
            throw new IllegalStateException("cannot fingerprint the code of " + type.getName() + ": " + e, e);
        }
    }
}
