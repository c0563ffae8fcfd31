package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Adding and removing a stage as text edits: the new stage is the selected one's text as typed (its name changed),
 * after the last stage and spaced as the stages are; a removed stage takes its comma. Only a config whose stages the
 * text cannot give (none, or not a list) is edited as a tree and written anew.
 */
final class StageEdits {

    private StageEdits() {}

    /** Adds a copy of stage {@code from}, named "stageN"; false when the text is not valid JSON. */
    static boolean addCopy(ConfigDocument document, int from) {
        String text = document.text();
        ObjectNode tree = JsonTree.parse(text);
        if (tree == null) {
            return false;
        }
        JsonNode stages = tree.get("stages");
        int count = stages != null && stages.isArray() ? stages.size() : 0;
        String copy = count > 0 ? JsonSplice.element(text, "stages", from) : null;
        String added = copy == null ? null : JsonSplice.append(text, "stages", copy);
        if (added != null) {
            JsonNode name = JsonNodeFactory.instance.textNode("stage" + (count + 1));
            String path = "stages[" + count + "].name";
            String named = JsonSplice.replace(added, path, name);
            document.textProperty().set(named != null ? named : JsonSplice.insert(added, path, name));
            return true;
        }
        return DocumentEdits.edit(document, t -> {
            ArrayNode list = t.withArray("stages");
            JsonNode stage = list.size() > 0
                    ? list.get(from).deepCopy()
                    : JsonNodeFactory.instance.objectNode().put("epochs", 1);
            if (stage instanceof ObjectNode o) {
                o.put("name", "stage" + (list.size() + 1));
            }
            list.add(stage);
        });
    }

    /** Removes stage {@code index} unless it is the only one. */
    static void remove(ConfigDocument document, int index) {
        JsonNode stages = JsonTree.get(JsonTree.parse(document.text()), "stages");
        if (stages == null || !stages.isArray() || stages.size() <= 1) {
            return;
        }
        String removed = JsonSplice.removeElement(document.text(), "stages", index);
        if (removed != null) {
            document.textProperty().set(removed);
        }
    }
}
