package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.Consumer;

/** Edits of the config's JSON made by the form and the other panels (devices, NCCL), each keeping the user's layout. */
public final class DocumentEdits {

    private DocumentEdits() {}

    /**
     * Sets (or, with null, removes) one value, changing only that value's text: replaced in place, added to the
     * nearest object the text already has (as a small one-line object when its own is missing), or removed with its
     * comma. Only where none of these fits (an index past a list's end) is the tree edited and written.
     */
    public static boolean set(ConfigDocument document, String path, JsonNode value) {
        String text = document.text();
        if (JsonTree.parse(text) == null) {
            return false;
        }
        String spliced = value == null ? removed(text, path) : JsonSplice.replace(text, path, value);
        if (spliced == null && value != null) {
            spliced = inserted(text, path, value);
        }
        if (spliced != null) {
            if (!spliced.equals(text)) {
                document.textProperty().set(spliced);
            }
            return true;
        }
        return edit(document, tree -> JsonTree.set(tree, path, value));
    }

    /** The text without the member; itself when there is nothing to remove; null when only the tree can do it. */
    private static String removed(String text, String path) {
        String spliced = JsonSplice.remove(text, path);
        if (spliced != null) {
            return spliced;
        }
        return JsonTree.get(JsonTree.parse(text), path) == null ? text : null;
    }

    /** Adds the value where the text's objects end: "a.b.c" into "a" as {"b": {"c": value}} when "a.b" is missing. */
    private static String inserted(String text, String path, JsonNode value) {
        ObjectNode tree = JsonTree.parse(text);
        List<Object> parts = JsonTree.parts(path);
        JsonNode wrapped = value;
        for (int keep = parts.size(); keep > 0; keep--) {
            if (!(parts.get(keep - 1) instanceof String key)) {
                return null;
            }
            String at = join(parts.subList(0, keep));
            String parent = join(parts.subList(0, keep - 1));
            JsonNode holder = parent.isEmpty() ? tree : JsonTree.get(tree, parent);
            if (holder != null) {
                return holder.isObject() ? JsonSplice.insert(text, at, wrapped) : null;
            }
            wrapped = JsonNodeFactory.instance.objectNode().set(key, wrapped);
        }
        return null;
    }

    private static String join(List<Object> parts) {
        StringBuilder b = new StringBuilder();
        for (Object p : parts) {
            if (p instanceof Integer i) {
                b.append('[').append(i).append(']');
            } else {
                b.append(b.length() == 0 ? "" : ".").append(p);
            }
        }
        return b.toString();
    }

    /** Applies {@code change} to the JSON tree; false when the text is not valid JSON (nothing changes then). */
    public static boolean edit(ConfigDocument document, Consumer<ObjectNode> change) {
        ObjectNode tree = JsonTree.parse(document.text());
        if (tree == null) {
            return false;
        }
        String before = JsonTree.write(tree);
        change.accept(tree);
        String after = JsonTree.write(tree);
        if (!after.equals(before)) {
            document.textProperty().set(after);
        }
        return true;
    }
}
