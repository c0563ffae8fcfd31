package org.traindeck.engine.config;

import java.util.ArrayList;
import java.util.List;

/** Collects problems found while reading one config, each located through the parsed document's positions. */
final class Problems {

    private final JsonLocations locations;
    private final List<ConfigProblem> list = new ArrayList<>();

    Problems(JsonLocations locations) {
        this.locations = locations;
    }

    void error(String path, String message) {
        list.add(ConfigProblem.error(path, message, locations.of(path)));
    }

    void warning(String path, String message) {
        list.add(ConfigProblem.warning(path, message, locations.of(path)));
    }

    void add(ConfigProblem problem) {
        list.add(problem);
    }

    boolean hasErrors() {
        return list.stream().anyMatch(ConfigProblem::isError);
    }

    List<ConfigProblem> all() {
        return List.copyOf(list);
    }
}
