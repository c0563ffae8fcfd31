package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.config.JsonLocations;

/**
 * Judges one JSON value against what the format asks of it (a string, one of a list of choices, a whole number or a
 * number within bounds, true or false, a list of whole numbers) and reports a value that is not so at its location.
 * {@link JsonObjectReader} finds the values and their bounds.
 */
final class JsonValueChecks {

    private final Problems problems;

    JsonValueChecks(Problems problems) {
        this.problems = problems;
    }

    /** The text of a string; null when {@code v} is not one (reported). */
    String string(String at, JsonNode v) {
        if (!v.isTextual()) {
            problems.error(at, "must be a string, not " + describe(v));
            return null;
        }
        return v.asText();
    }

    /** Whether {@code value} is one of {@code allowed} (compared case-sensitively, as written in the docs). */
    boolean oneOf(String at, String key, String value, List<String> allowed) {
        if (allowed.contains(value)) {
            return true;
        }
        problems.errorNamingItself(at, ChoiceMessage.of(at, key, value, allowed));
        return false;
    }

    /** Whether {@code v} is a whole number in [min, max]. */
    boolean integer(String at, JsonNode v, long min, long max) {
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

    /** A number between min and max, each bound excluded as asked; null when {@code v} is not one (reported). */
    Double number(String at, JsonNode v, double min, double max, boolean minExclusive, boolean maxExclusive) {
        if (!v.isNumber()) {
            problems.error(at, "must be a number, not " + describe(v));
            return null;
        }
        double d = v.doubleValue();
        boolean low = minExclusive ? d <= min : d < min;
        boolean high = maxExclusive ? d >= max : d > max;
        if (Double.isNaN(d) || low || high) {
            String lower = (minExclusive ? "> " : "≥ ") + fmt(min);
            problems.error(
                    at,
                    max == Double.MAX_VALUE
                            ? "must be " + lower
                            : "must be " + lower + " and " + (maxExclusive ? "< " : "≤ ") + fmt(max) + ", not "
                                    + fmt(d));
            return null;
        }
        return d;
    }

    /** true or false; null when {@code v} is neither (reported). */
    Boolean bool(String at, JsonNode v) {
        if (!v.isBoolean()) {
            problems.error(at, "must be true or false, not " + describe(v));
            return null;
        }
        return v.booleanValue();
    }

    /** A list of at least {@code minSize} whole numbers, each in [min, max]; null when malformed (reported). */
    List<Integer> intList(String at, JsonNode v, long min, long max, int minSize) {
        if (!v.isArray()) {
            problems.error(at, "must be a list of whole numbers, not " + describe(v));
            return null;
        }
        if (v.size() < minSize) {
            problems.error(at, "must have at least " + minSize + " value" + (minSize == 1 ? "" : "s"));
            return null;
        }
        List<Integer> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < v.size(); i++) {
            if (integer(JsonLocations.element(at, i), v.get(i), min, max)) {
                out.add(v.get(i).intValue());
            } else {
                ok = false;
            }
        }
        return ok ? List.copyOf(out) : null;
    }

    /** A value as a message names it: "the string \"x\"", "the number 3", "a list". */
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
}
