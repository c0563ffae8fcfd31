package org.traindeck.app.config;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Sections whose presence switches something on (a stage's "ema": even {} keeps a weight average with the defaults):
 * when the form clears the last of its values, the section goes too, so clearing the fields turns it off again.
 */
final class SwitchingSections {

    private static final String EMA = ".ema.";

    private SwitchingSections() {}

    /** After {@code path} was cleared: removes its section when that switches something on and is now empty. */
    static void dropIfEmpty(ConfigDocument document, String path) {
        int at = path.lastIndexOf(EMA);
        if (at < 0 || !path.startsWith("stages[") || path.indexOf('.', at + EMA.length()) >= 0) {
            return;
        }
        String section = path.substring(0, at + EMA.length() - 1);
        JsonNode node = JsonTree.get(JsonTree.parse(document.text()), section);
        if (node != null && node.isObject() && node.isEmpty()) {
            DocumentEdits.set(document, section, null);
        }
    }
}
