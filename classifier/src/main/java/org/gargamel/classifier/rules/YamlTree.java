package org.gargamel.classifier.rules;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document read into maps, lists and scalars, each remembering the line it started on, so that a
 * rules error can name its line (Jackson's tree model forgets locations).
 */
record YamlTree(Object value, int line) {

    static YamlTree read(InputStream in) throws IOException {
        try (JsonParser parser = new YAMLFactory().createParser(in)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return new YamlTree(new LinkedHashMap<String, YamlTree>(), 1);
            }
            return readValue(parser);
        }
    }

    private static YamlTree readValue(JsonParser parser) throws IOException {
        int line = parser.currentTokenLocation().getLineNr();
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT -> {
                Map<String, YamlTree> map = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    int keyLine = parser.currentTokenLocation().getLineNr();
                    parser.nextToken();
                    YamlTree child = readValue(parser);
                    if (map.put(name, child) != null) {
                        throw new IOException("line " + keyLine + ": key '" + name + "' appears twice");
                    }
                }
                return new YamlTree(map, line);
            }
            case START_ARRAY -> {
                List<YamlTree> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(readValue(parser));
                }
                return new YamlTree(list, line);
            }
            case VALUE_NULL -> {
                return new YamlTree(null, line);
            }
            default -> {
                return new YamlTree(parser.getValueAsString(parser.getText()), line);
            }
        }
    }

    @SuppressWarnings("unchecked")
    Map<String, YamlTree> map(String what, String file) {
        if (value instanceof Map<?, ?> map) {
            return (Map<String, YamlTree>) map;
        }
        throw new org.gargamel.classifier.RulesException(file + ":" + line + ": " + what + " must be a mapping");
    }

    @SuppressWarnings("unchecked")
    List<YamlTree> list(String what, String file) {
        if (value instanceof List<?> list) {
            return (List<YamlTree>) list;
        }
        throw new org.gargamel.classifier.RulesException(file + ":" + line + ": " + what + " must be a list");
    }

    String text(String what, String file) {
        if (value instanceof String text) {
            return text;
        }
        throw new org.gargamel.classifier.RulesException(file + ":" + line + ": " + what + " must be a single value");
    }
}
