package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the fields of one JSON object strictly, with the bounds, choices and defaults the run-config schema gives for
 * them (its variant's, once the object's type is known), and its nested objects as readers of their own. How a value
 * is judged is {@link JsonFieldReader}'s.
 */
final class JsonObjectReader extends JsonFieldReader {

    /** Where this object's bounds and choices come from (its variant once its type is known). */
    private SchemaNode schema;

    JsonObjectReader(Problems problems, String path, JsonNode node, SchemaNode schema) {
        super(problems, path, node);
        this.schema = schema;
    }

    SchemaNode schema() {
        return schema;
    }

    /** Reads the rest of the object as the variant {@code type} (a model, a data source, a schedule). */
    void variant(String type) {
        if (type != null) {
            schema = schema.variant(type);
        }
    }

    /** A choice whose allowed values are the schema's. */
    String choice(String key, String fallback) {
        return choice(key, fallback, schema.choices(key));
    }

    /** A choice whose allowed values and default are the schema's. */
    String choice(String key) {
        JsonNode d = schema.defaultOf(key);
        return choice(key, d == null ? null : d.asText());
    }

    /** A string, by default the schema's default. */
    String string(String key) {
        JsonNode d = schema.defaultOf(key);
        return string(key, d == null ? null : d.asText());
    }

    /** A whole number within the schema's bounds, by default the schema's default (null when it has none). */
    Integer integer(String key) {
        JsonNode d = schema.defaultOf(key);
        return integer(key, d == null ? null : d.intValue());
    }

    Long longValue(String key) {
        JsonNode d = schema.defaultOf(key);
        return longValue(key, d == null ? null : d.longValue());
    }

    /** A number within the schema's bounds, by default the schema's default (null when it has none). */
    Double number(String key) {
        JsonNode d = schema.defaultOf(key);
        return number(key, d == null ? null : d.doubleValue());
    }

    /** true or false, by default the schema's default (which every boolean of the format has). */
    boolean bool(String key) {
        JsonNode d = schema.defaultOf(key);
        if (d == null || !d.isBoolean()) {
            throw new IllegalStateException("the run-config schema gives no default for " + pathOf(key));
        }
        return bool(key, d.booleanValue());
    }

    String requiredChoice(String key) {
        return requiredChoice(key, schema.choices(key));
    }

    /** A whole number within the schema's bounds. */
    Integer integer(String key, Integer fallback) {
        long[] b = schema.integerBounds(key, Integer.MIN_VALUE, Integer.MAX_VALUE);
        return integer(key, fallback, b[0], b[1]);
    }

    /** A whole number that must be one of the schema's enum (channels: 1 or 3), by default the schema's default. */
    Integer integerChoice(String key) {
        List<Long> allowed = schema.integerChoices(key);
        JsonNode d = schema.defaultOf(key);
        Integer fallback = d == null ? null : d.intValue();
        Integer v = integer(key, fallback, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (v != null && !allowed.contains(v.longValue())) {
            problems.error(
                    pathOf(key),
                    "must be "
                            + String.join(
                                    " or ",
                                    allowed.stream().map(String::valueOf).toList()) + ", not " + v);
            return fallback;
        }
        return v;
    }

    Integer requiredInt(String key) {
        long[] b = schema.integerBounds(key, Integer.MIN_VALUE, Integer.MAX_VALUE);
        return requiredInt(key, b[0], b[1]);
    }

    Long longValue(String key, Long fallback) {
        long[] b = schema.integerBounds(key, Long.MIN_VALUE, Long.MAX_VALUE);
        return longValue(key, fallback, b[0], b[1]);
    }

    /** A list of whole numbers within the schema's item bounds and length; when absent, the schema's default or null. */
    List<Integer> intList(String key) {
        long[] b = schema.intListBounds(key);
        JsonNode given = raw(key);
        if (given != null && given.isArray() && given.size() > b[3]) {
            // before any value is read: a generated list of 450,000 layers is refused at once
            problems.error(pathOf(key), "has " + given.size() + " values; at most " + b[3]);
            return null;
        }
        List<Integer> list = intList(key, b[0], b[1], (int) b[2]);
        JsonNode d = schema.defaultOf(key);
        if (list == null && !has(key) && d != null && d.isArray()) {
            List<Integer> fallback = new ArrayList<>();
            d.forEach(v -> fallback.add(v.intValue()));
            return List.copyOf(fallback);
        }
        return list;
    }

    /**
     * A size written as one whole number (the same for every dimension) or one per dimension, within the schema's
     * bounds: 3 or [3, 3]. Read as written (an Integer or a list), so it is written back the same; absent, the schema's
     * default or null.
     */
    Object intOrList(String key) {
        long[] b = schema.intOrListBounds(key);
        JsonNode v = raw(key);
        if (v == null) {
            JsonNode d = schema.defaultOf(key);
            if (d == null) {
                return null;
            }
            if (!d.isArray()) {
                return d.intValue();
            }
            List<Integer> fallback = new ArrayList<>();
            d.forEach(e -> fallback.add(e.intValue()));
            return List.copyOf(fallback);
        }
        if (!v.isArray()) {
            return values.integer(pathOf(key), v, b[0], b[1]) ? v.intValue() : null;
        }
        if (v.size() < b[2] || v.size() > b[3]) {
            problems.error(
                    pathOf(key),
                    "must be one whole number or a list of " + (b[2] == b[3] ? b[2] : b[2] + " to " + b[3])
                            + " (one per dimension), not a list of " + v.size());
            return null;
        }
        return intList(key, b[0], b[1], (int) b[2]);
    }

    /** A number within the schema's bounds. */
    Double number(String key, Double fallback) {
        SchemaNode.NumberBounds b = schema.numberBounds(key);
        return number(key, fallback, b.min(), b.max(), b.minExclusive(), b.maxExclusive());
    }

    Double requiredNumber(String key) {
        SchemaNode.NumberBounds b = schema.numberBounds(key);
        if (!has(key)) {
            problems.error(pathOf(key), "is required");
            return null;
        }
        return number(key, null, b.min(), b.max(), b.minExclusive(), b.maxExclusive());
    }

    /** Allows every key any variant has: the variant is unknown (and reported), so its keys cannot be judged. */
    void allowAnyVariantKey() {
        allow(schema.allKeys());
    }

    /** The nested object at {@code key}, or null when it is absent (or not an object, which is reported). */
    JsonObjectReader object(String key) {
        JsonNode v = raw(key);
        if (v == null) {
            return null;
        }
        if (!v.isObject()) {
            problems.error(pathOf(key), "must be an object {...}, not " + describe(v));
            return null;
        }
        return new JsonObjectReader(problems, pathOf(key), v, schema == null ? null : schema.property(key));
    }

    /**
     * The nested object at {@code key}; when absent, the schema's default object for it, else an empty one, so that
     * every value is the schema's default.
     */
    JsonObjectReader section(String key) {
        JsonObjectReader present = object(key);
        if (present != null) {
            return present;
        }
        JsonNode d = schema.defaultOf(key);
        JsonNode fill = d != null && d.isObject() ? d.deepCopy() : JsonNodeFactory.instance.objectNode();
        return new JsonObjectReader(problems, pathOf(key), fill, schema.property(key));
    }

    JsonObjectReader requiredObject(String key) {
        if (!has(key)) {
            problems.error(pathOf(key), "is required");
            return null;
        }
        return object(key);
    }

    /** A value as a message names it; the readers' own messages name values so too. */
    static String describe(JsonNode v) {
        return JsonValueChecks.describe(v);
    }
}
