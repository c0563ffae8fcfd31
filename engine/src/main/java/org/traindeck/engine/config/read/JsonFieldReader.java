package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.traindeck.engine.config.JsonLocations;

/**
 * Reads the fields of one JSON object strictly, each against the bounds or choices it is given: wrong types and
 * out-of-range values are reported (and the fallback is used so that reading can go on and find the next problem),
 * and {@link #finish()} reports keys nobody asked for. {@link JsonObjectReader} takes the bounds, choices and defaults
 * from the schema.
 */
abstract class JsonFieldReader {

    final Problems problems;
    final JsonValueChecks values;
    private final String path;
    private final JsonNode node;
    private final Set<String> known = new LinkedHashSet<>();

    JsonFieldReader(Problems problems, String path, JsonNode node) {
        this.problems = problems;
        this.path = path;
        this.node = node;
        this.values = new JsonValueChecks(problems);
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

    /** Marks a key as allowed without reading it (read elsewhere, or checked with {@link #has}). */
    void allow(String... keys) {
        known.addAll(List.of(keys));
    }

    /** Marks every key of {@code keys} as allowed (a variant's, while the variant is unknown). */
    void allow(Collection<String> keys) {
        known.addAll(keys);
    }

    String requiredString(String key) {
        JsonNode v = raw(key);
        if (v == null) {
            problems.error(pathOf(key), "is required");
            return null;
        }
        return values.string(pathOf(key), v);
    }

    String string(String key, String fallback) {
        JsonNode v = raw(key);
        return v == null ? fallback : values.string(pathOf(key), v);
    }

    /** A string that must be one of {@code allowed} (compared case-sensitively, as written in the docs). */
    String choice(String key, String fallback, List<String> allowed) {
        String value = string(key, fallback);
        if (value != null && !values.oneOf(pathOf(key), key, value, allowed)) {
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
        return values.integer(pathOf(key), v, min, max) ? Long.valueOf(v.longValue()) : fallback;
    }

    /** A number between min and max, each bound excluded as asked. */
    Double number(String key, Double fallback, double min, double max, boolean minExclusive, boolean maxExclusive) {
        JsonNode v = raw(key);
        if (v == null) {
            return fallback;
        }
        Double d = values.number(pathOf(key), v, min, max, minExclusive, maxExclusive);
        return d == null ? fallback : d;
    }

    /** true or false when written; null when left out (a node option whose absence means "as the run says"). */
    Boolean optionalBool(String key) {
        JsonNode v = raw(key);
        return v == null ? null : values.bool(pathOf(key), v);
    }

    boolean bool(String key, boolean fallback) {
        JsonNode v = raw(key);
        Boolean b = v == null ? null : values.bool(pathOf(key), v);
        return b == null ? fallback : b;
    }

    /** A list of whole numbers each in [min, max]; null when absent or malformed (reported). */
    List<Integer> intList(String key, long min, long max, int minSize) {
        JsonNode v = raw(key);
        return v == null ? null : values.intList(pathOf(key), v, min, max, minSize);
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

    private static String quoteAll(List<String> values) {
        return String.join(", ", values.stream().map(v -> "\"" + v + "\"").toList());
    }
}
