package org.gargamel.tpcc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The classifier rules of the TPC-C procedures (docs/classifier.md). The kit owns them like its schema: the scheduler
 * and the nodes get them as a file ({@code rules:} in their configuration), which {@link #writeTo} makes. Two sets:
 * {@link Variant#COMMUTATIVE} declares the columns TPC-C only adds to as increments ({@code add:}) and is this class's
 * default (the in-process tests'); {@link Variant#TABLE61} are the thesis's rules, which reproduce its Table 6.1
 * exactly, and are the commands' default (the launcher's {@code RunTarget.Gargamel.DEFAULT_TPCC_RULES}: the commutative
 * rules measured slower, docs/results.md, Increments).
 */
public final class TpccRules {
    /** The default rules' class-path resource, for {@code ClassifierRules.loadResource(TpccRules.class, RESOURCE)}. */
    public static final String RESOURCE = "/org/gargamel/tpcc/tpcc-rules.yaml";

    /** The thesis's rules (Table 6.1): every write plain. */
    public static final String TABLE61_RESOURCE = "/org/gargamel/tpcc/tpcc-rules-table61.yaml";

    public static final String FILE_NAME = "tpcc-rules.yaml";

    /** Which of the kit's rules: the command-line option {@code --tpcc-rules commutative|table61}. */
    public enum Variant {
        /** Increments declared {@code add:} (this class's default). */
        COMMUTATIVE(RESOURCE),
        /** The thesis's rules, reproducing its Table 6.1. */
        TABLE61(TABLE61_RESOURCE);

        private final String resource;

        Variant(String resource) {
            this.resource = resource;
        }

        /** The class-path resource, for {@code ClassifierRules.loadResource(TpccRules.class, ...)}. */
        public String resource() {
            return resource;
        }

        /** Its name on the command line ({@code --tpcc-rules commutative|table61}). */
        public String cliName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** By {@link #cliName()}. */
        public static Variant parse(String text) {
            for (Variant variant : values()) {
                if (variant.cliName().equals(text)) {
                    return variant;
                }
            }
            throw new IllegalArgumentException(
                    "'" + text + "' names no TPC-C rules (table61, the thesis's; or commutative, with increments)");
        }

        /** The file name {@link TpccRules#writeTo(Path, Variant)} gives it. */
        public String fileName() {
            return resource.substring(resource.lastIndexOf('/') + 1);
        }
    }

    private static String temporaryCopy;

    private TpccRules() {}

    /** The default rules file's text as a stream; the caller closes it. */
    public static InputStream open() {
        return open(Variant.COMMUTATIVE);
    }

    /** A rules file's text as a stream; the caller closes it. */
    public static InputStream open(Variant variant) {
        InputStream in = TpccRules.class.getResourceAsStream(variant.resource());
        if (in == null) {
            throw new IllegalStateException("the TPC-C kit is missing its resource " + variant.resource());
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

    /** Writes the default rules file into {@code directory} (created if needed) and returns its path. */
    public static Path writeTo(Path directory) {
        return writeTo(directory, Variant.COMMUTATIVE);
    }

    /** Writes rules file {@code variant} into {@code directory} (created if needed) and returns its path. */
    public static Path writeTo(Path directory, Variant variant) {
        try (InputStream in = open(variant)) {
            Path file = Files.createDirectories(directory).resolve(variant.fileName());
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TPC-C rules into " + directory + ": " + e.getMessage(), e);
        }
    }
}
