package org.gargamel.tpcc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The classifier rules of the TPC-C procedures (docs/classifier.md; they reproduce the thesis's Table 6.1). The kit
 * owns them like its schema: the scheduler and the nodes get them as a file ({@code rules:} in their configuration),
 * which {@link #writeTo} makes.
 */
public final class TpccRules {
    /** The class-path resource, for {@code ClassifierRules.loadResource(TpccRules.class, TpccRules.RESOURCE)}. */
    public static final String RESOURCE = "/org/gargamel/tpcc/tpcc-rules.yaml";

    public static final String FILE_NAME = "tpcc-rules.yaml";

    private static String temporaryCopy;

    private TpccRules() {}

    /** The rules file's text as a stream; the caller closes it. */
    public static InputStream open() {
        InputStream in = TpccRules.class.getResourceAsStream(RESOURCE);
        if (in == null) {
            throw new IllegalStateException("the TPC-C kit is missing its resource " + RESOURCE);
        }
        return in;
    }

    /** A copy of the rules file in a temporary directory, made once per JVM and removed at exit (tests, tools). */
    public static synchronized String temporaryFile() {
        if (temporaryCopy == null) {
            try {
                Path directory = Files.createTempDirectory("gargamel-tpcc-rules");
                Path file = writeTo(directory);
                file.toFile().deleteOnExit();
                directory.toFile().deleteOnExit();
                temporaryCopy = file.toString();
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot write the TPC-C rules to a temporary file: " + e.getMessage(), e);
            }
        }
        return temporaryCopy;
    }

    /** Writes the rules file into {@code directory} (created if needed) and returns its path. */
    public static Path writeTo(Path directory) {
        try (InputStream in = open()) {
            Path file = Files.createDirectories(directory).resolve(FILE_NAME);
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TPC-C rules into " + directory + ": " + e.getMessage(), e);
        }
    }
}
