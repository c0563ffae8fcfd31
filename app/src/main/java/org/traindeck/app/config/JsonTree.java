package org.traindeck.app.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and edits a config's JSON by the paths the engine's messages use ({@code stages[1].epochs}), so a form field,
 * the raw text and a validation message all name the same place.
 */
public final class JsonTree {

    /** Decimals stay as typed: read exactly, written plain ({@code 0.00005}, never {@code 5.0E-5}). */
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private static final Pattern PART = Pattern.compile("([^.\\[\\]]+)|\\[(\\d+)]");

    private JsonTree() {}

    /** The document as a tree, or null when the text is not a JSON object. */
    public static ObjectNode parse(String text) {
        try {
            JsonNode n = MAPPER.readTree(text);
            return n instanceof ObjectNode o ? o : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /**
     * The tree as people lay out a config: one member per line, two-space indents, lists of plain values on one line
     * ({@code "hidden": [128, 64]}), decimals as typed.
     */
    public static String write(JsonNode tree) {
        StringBuilder out = new StringBuilder();
        write(tree, 0, out);
        return out.append('\n').toString();
    }

    private static void write(JsonNode node, int depth, StringBuilder out) {
        if (node.isObject() && !node.isEmpty()) {
            out.append("{\n");
            var fields = node.fields();
            while (fields.hasNext()) {
                var field = fields.next();
                out.append("  ".repeat(depth + 1))
                        .append(JsonSplice.compact(JsonNodeFactory.instance.textNode(field.getKey())))
                        .append(": ");
                write(field.getValue(), depth + 1, out);
                out.append(fields.hasNext() ? ",\n" : "\n");
            }
            out.append("  ".repeat(depth)).append('}');
        } else if (node.isArray() && !node.isEmpty() && hasContainers(node)) {
            out.append("[\n");
            for (int i = 0; i < node.size(); i++) {
                out.append("  ".repeat(depth + 1));
                write(node.get(i), depth + 1, out);
                out.append(i < node.size() - 1 ? ",\n" : "\n");
            }
            out.append("  ".repeat(depth)).append(']');
        } else {
            out.append(JsonSplice.compact(node));
        }
    }

    private static boolean hasContainers(JsonNode array) {
        for (JsonNode item : array) {
            if (item.isContainerNode()) {
                return true;
            }
        }
        return false;
    }

    static List<Object> parts(String path) {
        List<Object> parts = new ArrayList<>();
        Matcher m = PART.matcher(path);
        while (m.find()) {
            parts.add(m.group(1) != null ? m.group(1) : Integer.valueOf(m.group(2)));
        }
        return parts;
    }

    /** The value at {@code path}, or null. */
    public static JsonNode get(JsonNode root, String path) {
        JsonNode n = root;
        for (Object p : parts(path)) {
            if (n == null) {
                return null;
            }
            n = p instanceof Integer i ? n.get(i) : n.get((String) p);
        }
        return n == null || n.isNull() ? null : n;
    }

    /** Sets (or, with null, removes) the value at {@code path}, creating objects on the way. */
    public static void set(ObjectNode root, String path, JsonNode value) {
        List<Object> parts = parts(path);
        JsonNode n = root;
        for (int i = 0; i < parts.size() - 1; i++) {
            Object p = parts.get(i);
            JsonNode child = p instanceof Integer idx ? n.get(idx) : n.get((String) p);
            if (child == null || !(child.isObject() || child.isArray())) {
                if (value == null) {
                    return;
                }
                child = parts.get(i + 1) instanceof Integer
                        ? JsonNodeFactory.instance.arrayNode()
                        : JsonNodeFactory.instance.objectNode();
                if (p instanceof Integer idx && n instanceof ArrayNode a) {
                    while (a.size() <= idx) {
                        a.addObject();
                    }
                    a.set(idx, child);
                } else if (n instanceof ObjectNode o) {
                    o.set((String) p, child);
                }
            }
            n = child;
        }
        Object last = parts.get(parts.size() - 1);
        if (n instanceof ObjectNode o && last instanceof String key) {
            if (value == null) {
                o.remove(key);
            } else {
                o.set(key, value);
            }
        } else if (n instanceof ArrayNode a && last instanceof Integer idx && idx < a.size()) {
            a.set(idx, value == null ? JsonNodeFactory.instance.nullNode() : value);
        }
    }

    /**
     * What a user typed into a field, as JSON: a whole number, a decimal, true/false, or a string. Empty means "not
     * set" (null), so the engine's default applies. A typo stays a string, and the engine's validator names it.
     */
    public static JsonNode fromText(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            return null;
        }
        if (t.matches("-?\\d{1,18}")) {
            return JsonNodeFactory.instance.numberNode(Long.parseLong(t));
        }
        if (t.matches("-?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?")) {
            return JsonNodeFactory.withExactBigDecimals(true).numberNode(new BigDecimal(t));
        }
        if (t.equals("true") || t.equals("false")) {
            return JsonNodeFactory.instance.booleanNode(Boolean.parseBoolean(t));
        }
        if (t.startsWith("{")) {
            // an object shown as its JSON (a numpy source's named inputs): written back as the object it reads
            try {
                JsonNode object = MAPPER.readTree(t);
                if (object != null && object.isObject()) {
                    return object;
                }
            } catch (JsonProcessingException e) {
                // not JSON: kept as the text typed, for the validator to say what is wrong with it
            }
        }
        return JsonNodeFactory.instance.textNode(t);
    }

    /** The text a field shows for a JSON value (lists as "128, 64"). */
    public static String toText(JsonNode value) {
        if (value == null) {
            return "";
        }
        if (value.isArray()) {
            List<String> items = new ArrayList<>();
            value.forEach(v -> items.add(toText(v)));
            return String.join(", ", items);
        }
        if (value.isObject()) {
            return value.toString();
        }
        return value.isBigDecimal() ? value.decimalValue().toPlainString() : value.asText();
    }

    /** "128, 64" as a JSON list of numbers where they are numbers. */
    public static JsonNode listFromText(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            return null;
        }
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        for (String item : t.split("[,\\s]+")) {
            if (!item.isEmpty()) {
                a.add(fromText(item));
            }
        }
        return a;
    }
}
