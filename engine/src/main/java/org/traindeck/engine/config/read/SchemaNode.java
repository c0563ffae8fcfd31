package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One object of the run-config schema as the validator walks a config: its properties' bounds and choices, its
 * nested objects, list items and variants. The validator takes every range and every list of choices from here,
 * so docs/run-config.schema.json is the one place they are written.
 */
final class SchemaNode {

    private final JsonNode root;
    private final JsonNode node;

    private SchemaNode(JsonNode root, JsonNode node) {
        this.root = root;
        this.node = resolve(root, node);
    }

    static SchemaNode of(JsonNode schema) {
        return new SchemaNode(schema, schema);
    }

    /** The schema of property {@code key}, looking into every variant; null when there is none. */
    SchemaNode property(String key) {
        JsonNode p = rawProperty(key);
        return p == null ? null : new SchemaNode(root, p);
    }

    private JsonNode rawProperty(String key) {
        if (node.path("properties").has(key)) {
            return node.get("properties").get(key);
        }
        for (JsonNode branch : node.path("oneOf")) {
            if (branch.path("properties").has(key)) {
                return branch.get("properties").get(key);
            }
        }
        return null;
    }

    /** Whether this object (or one of its variants) has property {@code key}; every variant has "type". */
    boolean has(String key) {
        return rawProperty(key) != null || key.equals("type") && node.has("oneOf");
    }

    /** Property {@code key}'s own schema, its $ref followed. */
    JsonNode resolved(String key) {
        return resolve(root, declared(key));
    }

    /** The schema of an object's values under keys it does not list (a map's entries). */
    SchemaNode additional() {
        return new SchemaNode(root, node.get("additionalProperties"));
    }

    /** An array's item schema. */
    SchemaNode items() {
        return new SchemaNode(root, node.get("items"));
    }

    /** The variant whose "type" is {@code type} (a model, a data source, a schedule); itself when it has none. */
    SchemaNode variant(String type) {
        for (JsonNode branch : node.path("oneOf")) {
            if (type.equals(branch.path("properties").path("type").path("const").asText(null))) {
                return new SchemaNode(root, branch);
            }
        }
        return this;
    }

    /** The values property {@code key} may take: its enum, or for a variant's "type", the variants' names. */
    List<String> choices(String key) {
        List<String> out = new ArrayList<>();
        if (key.equals("type") && node.has("oneOf")) {
            node.get("oneOf")
                    .forEach(b -> out.add(
                            b.path("properties").path("type").path("const").asText()));
            return out;
        }
        JsonNode p = resolve(root, declared(key));
        p.path("enum").forEach(v -> out.add(v.asText()));
        if (out.isEmpty()) {
            throw new IllegalStateException("the schema gives no choices for " + key);
        }
        return out;
    }

    /** How a property's value is written, as far as reading it goes. */
    enum Kind {
        BOOLEAN,
        INTEGER,
        INTEGER_CHOICE,
        NUMBER,
        CHOICE,
        STRING,
        INT_LIST,
        INT_OR_LIST,
        OTHER
    }

    Kind kind(String key) {
        JsonNode p = resolve(root, declared(key));
        if (p.has("enum")) {
            boolean numbers = true;
            for (JsonNode v : p.get("enum")) {
                numbers &= v.isIntegralNumber();
            }
            return numbers ? Kind.INTEGER_CHOICE : Kind.CHOICE;
        }
        if (isIntOrList(p)) {
            return Kind.INT_OR_LIST;
        }
        return switch (p.path("type").asText()) {
            case "boolean" -> Kind.BOOLEAN;
            case "integer" -> Kind.INTEGER;
            case "number" -> Kind.NUMBER;
            case "string" -> Kind.STRING;
            case "array" ->
                "integer".equals(resolve(root, p.path("items")).path("type").asText()) ? Kind.INT_LIST : Kind.OTHER;
            default -> Kind.OTHER;
        };
    }

    /** A size written as one whole number or one per dimension: 3 or [3, 3]. */
    private boolean isIntOrList(JsonNode p) {
        boolean integer = false;
        boolean list = false;
        for (JsonNode branch : p.path("oneOf")) {
            JsonNode b = resolve(root, branch);
            integer |= "integer".equals(b.path("type").asText());
            list |= "array".equals(b.path("type").asText());
        }
        return integer && list && p.path("oneOf").size() == 2;
    }

    /** [minimum, maximum, minItems, maxItems] of a size written as 3 or [3, 3]. */
    long[] intOrListBounds(String key) {
        JsonNode p = resolve(root, declared(key));
        long[] b = {Long.MIN_VALUE, Long.MAX_VALUE, 1, Long.MAX_VALUE};
        for (JsonNode branch : p.path("oneOf")) {
            JsonNode r = resolve(root, branch);
            if ("array".equals(r.path("type").asText())) {
                b[2] = r.path("minItems").asLong(1);
                b[3] = r.path("maxItems").asLong(Long.MAX_VALUE);
                r = resolve(root, r.get("items"));
            }
            b[0] = r.path("minimum").asLong(b[0]);
            b[1] = r.path("maximum").asLong(b[1]);
        }
        return b;
    }

    /** The whole numbers an integer enum allows. */
    List<Long> integerChoices(String key) {
        List<Long> out = new ArrayList<>();
        resolve(root, declared(key)).path("enum").forEach(v -> out.add(v.longValue()));
        return out;
    }

    /** Whether this object (or the variant it is) lists {@code key} as required. */
    boolean isRequired(String key) {
        for (JsonNode k : node.path("required")) {
            if (k.asText().equals(key)) {
                return true;
            }
        }
        return false;
    }

    /** This node's own schema, its $ref followed (for keywords such as maxItems). */
    JsonNode resolvedSelf() {
        return node;
    }

    /** The keys this object (or the variant it is) declares, in the schema's order. */
    List<String> ownKeys() {
        List<String> keys = new ArrayList<>();
        node.path("properties").fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /** Every key of this object or of any of its variants (for an object whose variant is unknown). */
    List<String> allKeys() {
        List<String> keys = new ArrayList<>();
        node.path("properties").fieldNames().forEachRemaining(keys::add);
        for (JsonNode branch : node.path("oneOf")) {
            branch.path("properties").fieldNames().forEachRemaining(k -> {
                if (!keys.contains(k)) {
                    keys.add(k);
                }
            });
        }
        return keys;
    }

    /** The default the schema documents for property {@code key} (next to a $ref, or in what it names); null when none. */
    JsonNode defaultOf(String key) {
        JsonNode p = declared(key);
        if (p.has("default")) {
            return p.get("default");
        }
        return resolve(root, p).get("default");
    }

    /** [minimum, maximum] of an integer property; an absent bound is the type's own limit. */
    long[] integerBounds(String key, long lowest, long highest) {
        JsonNode p = resolve(root, declared(key));
        long min = p.has("minimum")
                ? p.get("minimum").asLong()
                : p.has("exclusiveMinimum") ? p.get("exclusiveMinimum").asLong() + 1 : lowest;
        long max = p.has("maximum")
                ? p.get("maximum").asLong()
                : p.has("exclusiveMaximum") ? p.get("exclusiveMaximum").asLong() - 1 : highest;
        return new long[] {min, max};
    }

    /** The range of a number property: minimum (or exclusiveMinimum), maximum (or exclusiveMaximum). */
    NumberBounds numberBounds(String key) {
        JsonNode p = resolve(root, declared(key));
        boolean maxExclusive = p.has("exclusiveMaximum");
        double max = p.has("maximum")
                ? p.get("maximum").asDouble()
                : maxExclusive ? p.get("exclusiveMaximum").asDouble() : Double.MAX_VALUE;
        if (p.has("exclusiveMinimum")) {
            return new NumberBounds(p.get("exclusiveMinimum").asDouble(), max, true, maxExclusive);
        }
        return new NumberBounds(
                p.has("minimum") ? p.get("minimum").asDouble() : -Double.MAX_VALUE, max, false, maxExclusive);
    }

    record NumberBounds(double min, double max, boolean minExclusive, boolean maxExclusive) {}

    /** A list of whole numbers (the property, or its list variant): [item minimum, item maximum, minItems]. */
    long[] intListBounds(String key) {
        JsonNode p = resolve(root, declared(key));
        JsonNode list = p;
        for (JsonNode branch : p.path("oneOf")) {
            if ("array".equals(branch.path("type").asText())) {
                list = branch;
            }
        }
        JsonNode items = resolve(root, list.get("items"));
        if (items == null) {
            throw new IllegalStateException(key + ": the schema gives no list items");
        }
        return new long[] {
            items.path("minimum").asLong(Long.MIN_VALUE),
            items.path("maximum").asLong(Long.MAX_VALUE),
            list.path("minItems").asLong(0),
            list.path("maxItems").asLong(Long.MAX_VALUE)
        };
    }

    private JsonNode declared(String key) {
        JsonNode p = rawProperty(key);
        if (p == null) {
            throw new IllegalStateException("the run-config schema has no property " + key + " here");
        }
        return p;
    }

    private static JsonNode resolve(JsonNode root, JsonNode node) {
        while (node != null && node.has("$ref")) {
            JsonNode target = root;
            for (String part : node.get("$ref").asText().substring(2).split("/")) {
                target = target.get(part);
            }
            node = target;
        }
        return node;
    }
}
