package org.traindeck.engine.config;

import java.util.HashMap;
import java.util.Map;

/** Where each value of a parsed JSON document starts, keyed by its path ({@code stages[1].epochs}). */
public final class JsonLocations {

    public record Position(int line, int column) {}

    private final Map<String, Position> values = new HashMap<>();

    public void put(String path, Position position) {
        values.putIfAbsent(path, position);
    }

    /** The position of the value at {@code path}, or of its nearest located parent; null if none is known. */
    public Position of(String path) {
        String p = path;
        while (p != null) {
            Position found = values.get(p);
            if (found != null) {
                return found;
            }
            p = parent(p);
        }
        return values.get("");
    }

    static String parent(String path) {
        if (path.isEmpty()) {
            return null;
        }
        int dot = path.lastIndexOf('.');
        int bracket = path.lastIndexOf('[');
        int cut = Math.max(dot, bracket);
        return cut <= 0 ? "" : path.substring(0, cut);
    }

    public static String child(String parent, String key) {
        return parent.isEmpty() ? key : parent + "." + key;
    }

    public static String element(String parent, int index) {
        return parent + "[" + index + "]";
    }
}
