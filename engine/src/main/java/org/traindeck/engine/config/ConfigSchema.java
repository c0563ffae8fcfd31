package org.traindeck.engine.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The run-config JSON Schema (docs/run-config.schema.json, bundled with the engine), read by whatever must agree with
 * it: the app's form takes its choice lists from here, and a test checks every bound and choice of it against the
 * validator.
 */
public final class ConfigSchema {

    private static final JsonNode SCHEMA = load();

    private ConfigSchema() {
    }

    private static JsonNode load() {
        try (InputStream in = ConfigSchema.class.getResourceAsStream("run-config.schema.json")) {
            if (in == null) {
                throw new IllegalStateException("run-config.schema.json is missing from the engine's resources");
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema's root object, as the validator walks it for bounds and choices. */
    static SchemaNode root() {
        return SchemaNode.of(SCHEMA);
    }

    /** The schema itself. */
    public static JsonNode json() {
        return SCHEMA.deepCopy();
    }

    /**
     * The values a property may take, in the schema's order: its enum, or for a "type" that selects among variants
     * (model, data source, schedule) the variants' names. {@code path} names properties with dots, {@code []} for an
     * array's items: "model.type", "stages[].optimizer.type".
     */
    public static List<String> choices(String path) {
        JsonNode node = SCHEMA;
        String[] parts = path.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            boolean items = parts[i].endsWith("[]");
            String key = items ? parts[i].substring(0, parts[i].length() - 2) : parts[i];
            node = property(resolve(node), key, i == parts.length - 1);
            if (node == null) {
                throw new IllegalArgumentException("the run-config schema has no " + path);
            }
            if (items) {
                node = resolve(node).get("items");
            }
        }
        node = resolve(node);
        List<String> out = new ArrayList<>();
        if (node.has("enum")) {
            node.get("enum").forEach(v -> out.add(v.asText()));
        } else if (node.has("const")) {
            out.add(node.get("const").asText());
        }
        return out;
    }

    /** A property of an object schema; a "type" of a oneOf collects every variant's name. */
    private static JsonNode property(JsonNode object, String key, boolean last) {
        if (object.path("properties").has(key)) {
            return object.get("properties").get(key);
        }
        if (object.has("oneOf")) {
            if (key.equals("type") && last) {
                ObjectNode variants = JsonNodeFactory.instance.objectNode();
                ArrayNode names = variants.putArray("enum");
                object.get("oneOf").forEach(b -> names.add(b.path("properties").path("type").path("const").asText()));
                return variants;
            }
            for (JsonNode branch : object.get("oneOf")) {
                if (branch.path("properties").has(key)) {
                    return branch.get("properties").get(key);
                }
            }
        }
        return null;
    }

    private static JsonNode resolve(JsonNode node) {
        while (node != null && node.has("$ref")) {
            JsonNode target = SCHEMA;
            for (String part : node.get("$ref").asText().substring(2).split("/")) {
                target = target.get(part);
            }
            node = target;
        }
        return node;
    }
}
