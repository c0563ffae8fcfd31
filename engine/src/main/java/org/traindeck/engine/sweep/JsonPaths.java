package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sets a value in a config's JSON by the paths the validator's messages use ({@code stages[0].optimizer.learningRate}). */
final class JsonPaths {

    private static final Pattern PART = Pattern.compile("([^.\\[\\]]+)|\\[(\\d+)]");

    private JsonPaths() {}

    /** The value at {@code path}, or null. */
    static JsonNode get(JsonNode root, String path) {
        JsonNode node = root;
        Matcher m = PART.matcher(path);
        while (m.find() && node != null) {
            node = m.group(1) != null ? node.get(m.group(1)) : node.get(Integer.parseInt(m.group(2)));
        }
        return node;
    }

    /**
     * Sets the value, creating objects on the way; returns why it cannot (a list element the base does not have),
     * else null.
     */
    static String set(ObjectNode root, String path, JsonNode value) {
        List<Object> parts = new ArrayList<>();
        Matcher m = PART.matcher(path);
        while (m.find()) {
            parts.add(m.group(1) != null ? m.group(1) : Integer.valueOf(m.group(2)));
        }
        JsonNode node = root;
        StringBuilder at = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            Object part = parts.get(i);
            boolean last = i == parts.size() - 1;
            if (part instanceof Integer index) {
                if (!node.isArray() || index >= node.size()) {
                    return at + "[" + index + "] is not in the base config"
                            + (node.isArray() ? " (it has " + node.size() + ")" : "");
                }
                if (last) {
                    ((ArrayNode) node).set(index, value);
                    return null;
                }
                node = node.get(index);
                at.append('[').append(index).append(']');
            } else {
                String key = (String) part;
                if (!(node instanceof ObjectNode object)) {
                    return at + " is not an object in the base config, so it has no " + key;
                }
                if (last) {
                    object.set(key, value);
                    return null;
                }
                JsonNode child = object.get(key);
                if (child == null || child.isNull()) {
                    child = parts.get(i + 1) instanceof Integer ? object.putArray(key) : object.putObject(key);
                }
                node = child;
                at.append(at.length() == 0 ? "" : ".").append(key);
            }
        }
        return null;
    }
}
