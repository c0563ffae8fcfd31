package org.traindeck.engine.data;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tokens of a text, in id order: one entry per distinct character (Unicode code point), sorted, so that the same
 * text always gives the same ids. It is stored with the run and its checkpoints.
 */
public record Vocabulary(List<String> tokens) {

    public Vocabulary {
        tokens = List.copyOf(tokens);
    }

    public int size() {
        return tokens.size();
    }

    /** Token text → id. */
    public Map<String, Integer> ids() {
        Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < tokens.size(); i++) {
            ids.put(tokens.get(i), i);
        }
        return ids;
    }
}
