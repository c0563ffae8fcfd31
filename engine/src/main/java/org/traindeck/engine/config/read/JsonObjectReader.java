package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.traindeck.engine.config.JsonLocations;

/**
 * Reads the fields of one JSON object strictly: wrong types and out-of-range values are reported (and a default is
 * used so that reading can go on and find the next problem), and {@link #finish()} reports keys nobody asked for.
 */
final class JsonObjectReader {

    private final Problems problems;
    private final String path;
    private final JsonNode node;
    private final Set<String> known = new LinkedHashSet<>();
    /** Where this object's bounds and choices come from (its variant once its type is known). */
    private SchemaNode schema;

    JsonObjectReader(Problems problems, String path, JsonNode node, SchemaNode schema) {
        this.problems = problems;
        this.path = path;
        this.node = node;
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
            return checkInteger(pathOf(key), v, b[0], b[1]) ? v.intValue() : null;
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

    String pathOf(String key) {
        return JsonLocations.child(path, key);
    }

    boolean has(String key) {
        known.add(key);
        JsonNode v = node.get(key);
        return v != null && !v.isNull();
    }

    JsonNode raw(String key) {
        known.add(key);
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : v;
    }

    /** Allows every key any variant has: the variant is unknown (and reported), so its keys cannot be judged. */
    void allowAnyVariantKey() {
        known.addAll(schema.allKeys());
    }

    /** Marks a key as allowed without reading it (read elsewhere, or checked with {@link #has}). */
    void allow(String... keys) {
        known.addAll(List.of(keys));
    }

    String requiredString(String key) {
        JsonNode v = raw(key);
        if (v == null) {
            problems.error(pathOf(key), "is required");
            return null;
        }
        return asString(key, v);
    }

    String string(String key, String fallback) {
        JsonNode v = raw(key);
        return v == null ? fallback : asString(key, v);
    }

    private String asString(String key, JsonNode v) {
        if (!v.isTextual()) {
            problems.error(pathOf(key), "must be a string, not " + describe(v));
            return null;
        }
        return v.asText();
    }

    /** A string that must be one of {@code allowed} (compared case-sensitively, as written in the docs). */
    String choice(String key, String fallback, List<String> allowed) {
        String value = string(key, fallback);
        if (value != null && !allowed.contains(value)) {
            problems.errorNamingItself(pathOf(key), ChoiceMessage.of(pathOf(key), key, value, allowed));
            return fallback;
        }
        return value;
    }

    String requiredChoice(String key, List<String> allowed) {
        if (!has(key)) {
            problems.error(pathOf(key), "is required: one of " + quoteAll(allowed));
            return null;
        }
        return choice(key, null, allowed);
    }

    Integer requiredInt(String key, long min, long max) {
        if (!has(key)) {
            problems.error(pathOf(key), "is required");
            return null;
        }
        return integer(key, null, min, max);
    }

    Integer integer(String key, Integer fallback, long min, long max) {
        Long v = longValue(key, fallback == null ? null : Long.valueOf(fallback), min, max);
        return v == null ? fallback : Integer.valueOf(v.intValue());
    }

    Long longValue(String key, Long fallback, long min, long max) {
        JsonNode v = raw(key);
        if (v == null) {
            return fallback;
        }
        if (checkInteger(pathOf(key), v, min, max)) {
            return v.longValue();
        }
        return fallback;
    }

    boolean checkInteger(String at, JsonNode v, long min, long max) {
        if (!v.isIntegralNumber()) {
            problems.error(
                    at,
                    v.isNumber()
                            ? "must be a whole number, not " + v.asText()
                            : "must be a whole number, not " + describe(v));
            return false;
        }
        if (!v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            problems.error(at, rangeMessage(min, max));
            return false;
        }
        return true;
    }

    private static String rangeMessage(long min, long max) {
        if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) {
            return "must be ≥ " + min;
        }
        return "must be between " + min + " and " + max;
    }

    Double requiredNumber(String key, double min, double max, boolean minExclusive) {
        if (!has(key)) {
            problems.error(pathOf(key), "is required");
            return null;
        }
        return number(key, null, min, max, minExclusive);
    }

    /** A number in [min, max], or (min, max] when {@code minExclusive}. */
    Double number(String key, Double fallback, double min, double max, boolean minExclusive) {
        return number(key, fallback, min, max, minExclusive, false);
    }

    /** A number between min and max, each bound excluded as asked. */
    Double number(String key, Double fallback, double min, double max, boolean minExclusive, boolean maxExclusive) {
        JsonNode v = raw(key);
        if (v == null) {
            return fallback;
        }
        if (!v.isNumber()) {
            problems.error(pathOf(key), "must be a number, not " + describe(v));
            return fallback;
        }
        double d = v.doubleValue();
        boolean low = minExclusive ? d <= min : d < min;
        boolean high = maxExclusive ? d >= max : d > max;
        if (Double.isNaN(d) || low || high) {
            String lower = (minExclusive ? "> " : "≥ ") + fmt(min);
            problems.error(
                    pathOf(key),
                    max == Double.MAX_VALUE
                            ? "must be " + lower
                            : "must be " + lower + " and " + (maxExclusive ? "< " : "≤ ") + fmt(max) + ", not "
                                    + fmt(d));
            return fallback;
        }
        return d;
    }

    /** true or false when written; null when left out (a node option whose absence means "as the run says"). */
    Boolean optionalBool(String key) {
        JsonNode v = raw(key);
        if (v == null) {
            return null;
        }
        if (!v.isBoolean()) {
            problems.error(pathOf(key), "must be true or false, not " + describe(v));
            return null;
        }
        return v.booleanValue();
    }

    boolean bool(String key, boolean fallback) {
        JsonNode v = raw(key);
        if (v == null) {
            return fallback;
        }
        if (!v.isBoolean()) {
            problems.error(pathOf(key), "must be true or false, not " + describe(v));
            return fallback;
        }
        return v.booleanValue();
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

    /** A list of whole numbers each in [min, max]; null when absent or malformed (reported). */
    List<Integer> intList(String key, long min, long max, int minSize) {
        JsonNode v = raw(key);
        if (v == null) {
            return null;
        }
        if (!v.isArray()) {
            problems.error(pathOf(key), "must be a list of whole numbers, not " + describe(v));
            return null;
        }
        if (v.size() < minSize) {
            problems.error(pathOf(key), "must have at least " + minSize + " value" + (minSize == 1 ? "" : "s"));
            return null;
        }
        List<Integer> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < v.size(); i++) {
            if (checkInteger(JsonLocations.element(pathOf(key), i), v.get(i), min, max)) {
                out.add(v.get(i).intValue());
            } else {
                ok = false;
            }
        }
        return ok ? List.copyOf(out) : null;
    }

    /** Reports every key that no reader asked about, with the closest allowed key when one is near. */
    void finish() {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                if (problems.full()) {
                    problems.error(pathOf(name), "unknown key");
                    continue;
                }
                problems.error(
                        pathOf(name),
                        "unknown key \"" + name + "\"" + Suggestions.didYouMean(name, List.copyOf(known))
                                + " (allowed here: " + String.join(", ", known) + ")");
            }
        }
    }

    static String describe(JsonNode v) {
        if (v.isTextual()) {
            return "the string \"" + v.asText() + "\"";
        }
        if (v.isBoolean()) {
            return v.asText();
        }
        if (v.isNumber()) {
            return "the number " + v.asText();
        }
        if (v.isArray()) {
            return "a list";
        }
        if (v.isObject()) {
            return "an object";
        }
        return v.getNodeType().toString().toLowerCase();
    }

    static String fmt(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    private static String quoteAll(List<String> values) {
        return String.join(", ", values.stream().map(v -> "\"" + v + "\"").toList());
    }
}
