package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The model types of the run-config schema ({@code $defs/model}'s variants) and each one's properties, as the form
 * shows them: a new model type in the schema gets its fields without form code. Read from the schema the engine
 * bundles, the one file the validator reads.
 */
final class ModelSchema {

    /** How a property is edited. */
    enum Kind {
        CHOICE,
        INTEGER,
        NUMBER,
        BOOLEAN,
        INT_LIST,
        STRING,
        OTHER
    }

    /** One property of a model type: its key, how it is edited, what it is for, its default as shown, its choices. */
    record Property(String key, Kind kind, String hint, String defaultText, List<String> choices) {}

    private static final String RESOURCE = "/org/traindeck/engine/config/run-config.schema.json";
    private static final JsonNode SCHEMA = load();

    private ModelSchema() {}

    private static JsonNode load() {
        try (InputStream in = ModelSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the engine's resources");
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The properties of model type {@code type} other than "type", in the schema's order; empty for an unknown type. */
    static List<Property> properties(String type) {
        List<Property> out = new ArrayList<>();
        JsonNode variant = variant(type);
        if (variant == null) {
            return out;
        }
        for (Map.Entry<String, JsonNode> e : variant.path("properties").properties()) {
            if (!e.getKey().equals("type")) {
                out.add(property(e.getKey(), resolve(e.getValue())));
            }
        }
        return out;
    }

    /** What model type {@code type} is, from the schema; null when it says nothing. */
    static String description(String type) {
        JsonNode variant = variant(type);
        return variant == null || !variant.has("description")
                ? null
                : variant.get("description").asText();
    }

    /** The types of definition {@code def}'s variants (a source's, a schedule's) that have property {@code key}. */
    static Set<String> variantsWith(String def, String key) {
        Set<String> out = new HashSet<>();
        for (JsonNode v : SCHEMA.path("$defs").path(def).path("oneOf")) {
            if (v.path("properties").has(key)) {
                out.add(v.path("properties").path("type").path("const").asText());
            }
        }
        return out;
    }

    private static JsonNode variant(String type) {
        for (JsonNode v : SCHEMA.path("$defs").path("model").path("oneOf")) {
            if (v.path("properties").path("type").path("const").asText("").equals(type)) {
                return v;
            }
        }
        return null;
    }

    private static Property property(String key, JsonNode p) {
        List<String> choices = new ArrayList<>();
        p.path("enum").forEach(v -> choices.add(v.asText()));
        Kind kind = !choices.isEmpty()
                ? Kind.CHOICE
                : switch (p.path("type").asText()) {
                    case "integer" -> Kind.INTEGER;
                    case "number" -> Kind.NUMBER;
                    case "boolean" -> Kind.BOOLEAN;
                    case "string" -> Kind.STRING;
                    case "array" ->
                        "integer".equals(resolve(p.path("items")).path("type").asText()) ? Kind.INT_LIST : Kind.OTHER;
                    default -> Kind.OTHER;
                };
        JsonNode d = p.get("default");
        String defaultText =
                d == null ? null : d.isTextual() ? d.asText() : d.toString().replace(",", ", ");
        return new Property(key, kind, hint(p, defaultText), defaultText, choices);
    }

    /** Worded as the engine words the other fields' hints: what it is for, its range, its default. */
    private static String hint(JsonNode p, String defaultText) {
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
        if (defaultText != null) {
            parts.add("Default: " + defaultText + ".");
        }
        return parts.isEmpty() ? null : String.join(" ", parts);
    }

    /** The node with its {@code $ref} followed; a property's own default or description wins over its target's. */
    private static JsonNode resolve(JsonNode node) {
        JsonNode ref = node.get("$ref");
        if (ref == null) {
            return node;
        }
        JsonNode target = SCHEMA.at(ref.asText().substring(1));
        ObjectNode merged = target.deepCopy();
        node.properties().forEach(e -> {
            if (!e.getKey().equals("$ref")) {
                merged.set(e.getKey(), e.getValue());
            }
        });
        return resolve(merged);
    }
}
