package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

    private ConfigSchema() {}

    private static JsonNode load() {
        try (InputStream in =
                ConfigSchema.class.getResourceAsStream("/org/traindeck/engine/config/run-config.schema.json")) {
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
     * array's items: "model.type", "stages[].optimizer.type"; indices are ignored ("stages[1].precision").
     */
    public static List<String> choices(String path) {
        Place p = place(path);
        return p.parent().choices(p.key());
    }

    /**
     * The default of a property as the form shows it ("0.001", "[256, 128]"), or null when it has none (required, or
     * one that depends on other fields).
     */
    public static String defaultText(String path) {
        JsonNode d = defaultNode(path);
        if (d == null) {
            return null;
        }
        return d.isTextual() ? d.asText() : d.toString().replace(",", ", ");
    }

    /** The schema of the property at {@code path} (its $ref followed), to read its bounds from. */
    public static JsonNode property(String path) {
        Place p = place(path);
        return p.parent().resolved(p.key()).deepCopy();
    }

    /** What a property is for, its range and its default, in a sentence or two; null when the schema says nothing. */
    public static String hint(String path) {
        Place place = place(path);
        JsonNode p = place.parent().resolved(place.key());
        List<String> parts = new ArrayList<>();
        if (p.has("description")) {
            parts.add(p.get("description").asText());
        }
        String low = p.has("minimum")
                ? "≥ " + p.get("minimum").asText()
                : p.has("exclusiveMinimum") ? "> " + p.get("exclusiveMinimum").asText() : null;
        String high = p.has("maximum")
                ? "≤ " + p.get("maximum").asText()
                : p.has("exclusiveMaximum") ? "< " + p.get("exclusiveMaximum").asText() : null;
        if (low != null || high != null) {
            parts.add((p.path("type").asText().equals("integer") ? "A whole number " : "A number ")
                    + String.join(
                            " and ",
                            Stream.of(low, high).filter(Objects::nonNull).toList()) + ".");
        }
        String d = defaultText(path);
        if (d != null) {
            parts.add("Default: " + d + ".");
        }
        return parts.isEmpty() ? null : String.join(" ", parts);
    }

    private static JsonNode defaultNode(String path) {
        Place p = place(path);
        JsonNode own = p.parent().defaultOf(p.key());
        int dot = path.lastIndexOf('.');
        if (own == null && dot > 0 && !path.substring(0, dot).endsWith("]")) {
            // a section's default object gives its keys' defaults: a stage's schedule is {"type": "constant"}
            JsonNode section = defaultNode(path.substring(0, dot));
            return section == null ? null : section.get(p.key());
        }
        return own;
    }

    /** Where a path's last property is: the object schema that holds it, and its key. */
    private record Place(SchemaNode parent, String key) {}

    private static Place place(String path) {
        String[] parts = path.replaceAll("\\[\\d*]", "[]").split("\\.");
        SchemaNode node = root();
        for (int i = 0; i < parts.length - 1; i++) {
            boolean items = parts[i].endsWith("[]");
            node = node.property(items ? parts[i].substring(0, parts[i].length() - 2) : parts[i]);
            if (node == null) {
                throw new IllegalArgumentException("the run-config schema has no " + path);
            }
            if (items) {
                node = node.items();
            }
        }
        String key = parts[parts.length - 1];
        if (!node.has(key)) {
            throw new IllegalArgumentException("the run-config schema has no " + path);
        }
        return new Place(node, key);
    }
}
