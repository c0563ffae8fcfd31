package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.function.Consumer;

/** Edits of the config's JSON made by panels other than the form (devices, NCCL). */
public final class DocumentEdits {

    private DocumentEdits() {
    }

    /**
     * Sets (or, with null, removes) one value: only that value's text changes when it is already there, else the
     * tree is edited and written.
     */
    public static boolean set(ConfigDocument document, String path, JsonNode value) {
        String spliced = value == null ? null : JsonSplice.replace(document.text(), path, value);
        if (spliced != null) {
            if (!spliced.equals(document.text())) {
                document.textProperty().set(spliced);
            }
            return true;
        }
        return edit(document, tree -> JsonTree.set(tree, path, value));
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
