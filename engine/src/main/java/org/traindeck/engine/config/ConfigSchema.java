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
import java.util.Objects;
import java.util.stream.Stream;

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
        JsonNode node = at(path);
        List<String> out = new ArrayList<>();
        if (node.has("enum")) {
            node.get("enum").forEach(v -> out.add(v.asText()));
        } else if (node.has("const")) {
            out.add(node.get("const").asText());
        }
        return out;
    }

    /**
     * The default of a property as the form shows it ("0.001", "[256, 128]"), or null when it has none (required, or
     * one that depends on other fields). Indices in {@code path} are ignored: "stages[1].batchSize" is "stages[].batchSize".
     */
    public static String defaultText(String path) {
        JsonNode d = defaultNode(path);
        if (d == null) {
            return null;
        }
        return d.isTextual() ? d.asText() : d.toString().replace(",", ", ");
    }

    /** The schema of the property at {@code path} (its $ref followed; indices ignored), to read its bounds from. */
    public static JsonNode property(String path) {
        return at(path).deepCopy();
    }

    /** What a property is for, its range and its default, in a sentence or two; null when the schema says nothing. */
    public static String hint(String path) {
        JsonNode p = at(path);
        List<String> parts = new ArrayList<>();
        if (p.has("description")) {
            parts.add(p.get("description").asText());
        }
        String low = p.has("minimum") ? "≥ " + p.get("minimum").asText() : p.has("exclusiveMinimum") ? "> " + p.get("exclusiveMinimum").asText() : null;
        String high = p.has("maximum") ? "≤ " + p.get("maximum").asText() : null;
        if (low != null || high != null) {
            parts.add((p.path("type").asText().equals("integer") ? "A whole number " : "A number ")
                    + String.join(" and ", Stream.of(low, high).filter(Objects::nonNull).toList()) + ".");
        }
        String d = defaultText(path);
        if (d != null) {
            parts.add("Default: " + d + ".");
        }
        return parts.isEmpty() ? null : String.join(" ", parts);
    }

    private static JsonNode defaultNode(String path) {
        String plain = path.replaceAll("\\[\\d+]", "[]");
        int dot = plain.lastIndexOf('.');
        String key = plain.substring(dot + 1);
        JsonNode parent = dot < 0 ? SCHEMA : at(plain.substring(0, dot));
        JsonNode raw = property(parent, key, false);
        if (raw == null) {
            return null;
        }
        JsonNode own = raw.has("default") ? raw.get("default") : resolve(raw).get("default");
        if (own == null && dot > 0) {
            // a section's default object gives its keys' defaults: a stage's schedule is {"type": "constant"}
            JsonNode section = defaultNode(plain.substring(0, dot));
            return section == null ? null : section.get(key);
        }
        return own;
    }

    /** The resolved schema of the property at {@code path} (indices ignored). */
    private static JsonNode at(String path) {
        JsonNode node = SCHEMA;
        path = path.replaceAll("\\[\\d+]", "[]");
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
        return resolve(node);
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
