package org.gargamel.common.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads and writes the YAML configuration of the scheduler and the nodes. Strict: an unknown key, a value of the
 * wrong type or a missing required key fails with a message that names the file, the key (as a path such as
 * {@code control.bind}) and the line.
 */
public final class ConfigFiles {
    private static final ObjectMapper YAML = new ObjectMapper(
                    new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER))
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .setDefaultPropertyInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);

    private ConfigFiles() {}

    public static <T> T read(Path file, Class<T> type) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("configuration file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage(), e);
        }
        return parse(text, file.toString(), type);
    }

    public static <T> T parse(String text, String source, Class<T> type) {
        try {
            T value = YAML.readValue(text, type);
            if (value == null) {
                throw new ConfigException(source + ": the file is empty");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            String known = e.getKnownPropertyIds() == null
                    ? ""
                    : e.getKnownPropertyIds().stream()
                            .map(Object::toString)
                            .sorted()
                            .collect(Collectors.joining(", "));
            throw new ConfigException(
                    source + ": line " + line(e) + ": unknown key '" + path(e) + "'"
                            + (known.isEmpty() ? "" : " (known keys here: " + known + ")"),
                    e);
        } catch (InvalidFormatException e) {
            throw new ConfigException(
                    source + ": line " + line(e) + ": key '" + path(e) + "': '" + e.getValue() + "' is not a valid "
                            + e.getTargetType().getSimpleName(),
                    e);
        } catch (MismatchedInputException e) {
            throw new ConfigException(
                    source + ": line " + line(e) + ": key '" + path(e) + "': "
                            + e.getOriginalMessage()
                                    .replaceAll("\\(through reference chain.*", "")
                                    .trim(),
                    e);
        } catch (JsonProcessingException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ConfigException config) {
                throw new ConfigException(source + ": " + config.getMessage(), e);
            }
            if (cause instanceof IllegalArgumentException invalid) {
                // A typed value that refused its text (Mode, Isolation): name the key it was given for.
                String key =
                        e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping ? path(mapping) : "";
                throw new ConfigException(
                        source + ": line " + line(e) + ": " + (key.isEmpty() ? "" : "key '" + key + "': ")
                                + invalid.getMessage(),
                        e);
            }
            throw new ConfigException(source + ": line " + line(e) + ": " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Reads a process's configuration file whose {@code rules} path, when relative, is read beside the file (wherever
     * the process was started), then validates it; a validation error names the file.
     */
    public static <T> T readWithRules(
            Path file,
            Class<T> type,
            Function<T, String> rules,
            BiFunction<T, String, T> withRules,
            Consumer<T> validate) {
        T config = read(file, type);
        String rulesFile = resolveBeside(file, rules.apply(config));
        if (rulesFile != null) {
            // Always: the callers also resolve their other paths (the cluster's secret file) beside the file here.
            config = withRules.apply(config, rulesFile);
        }
        try {
            validate.accept(config);
        } catch (ConfigException e) {
            throw new ConfigException(file + ": " + e.getMessage(), e);
        }
        return config;
    }

    /** {@code path} as given if absolute (or null), else resolved against the directory of {@code configFile}. */
    public static String resolveBeside(Path configFile, String path) {
        if (path == null || Path.of(path).isAbsolute()) {
            return path;
        }
        Path directory = configFile.toAbsolutePath().getParent();
        return directory.resolve(path).normalize().toString();
    }

    public static void write(Path file, Object value) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            YAML.writeValue(file.toFile(), value);
        } catch (IOException e) {
            throw new ConfigException("cannot write configuration file " + file + ": " + e.getMessage(), e);
        }
    }

    private static int line(JsonProcessingException e) {
        return e.getLocation() == null ? 0 : e.getLocation().getLineNr();
    }

    private static String path(com.fasterxml.jackson.databind.JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonMappingException.Reference reference : e.getPath()) {
            if (reference.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }
}
