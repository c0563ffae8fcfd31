package org.traindeck.engine.config;

import java.util.List;
import java.util.stream.Collectors;

/** A config (or its data) that cannot be run, with every problem found. */
public class InvalidConfigException extends RuntimeException {

    private final List<ConfigProblem> problems;

    public InvalidConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public InvalidConfigException(String path, String message) {
        this(List.of(new ConfigProblem(ConfigProblem.Severity.ERROR, path, message, 0, 0)));
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
