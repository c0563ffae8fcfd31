package org.traindeck.engine.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of reading a config: the config when there is no error, and every problem found, in document order.
 * It keeps where each value of the text was, so that checks made later (the model against the data) are located too.
 */
public record ValidationResult(RunConfig config, List<ConfigProblem> problems, JsonLocations locations) {

    public ValidationResult {
        problems = List.copyOf(problems);
        locations = locations == null ? new JsonLocations() : locations;
    }

    public ValidationResult(RunConfig config, List<ConfigProblem> problems) {
        this(config, problems, null);
    }

    public boolean isValid() {
        return config != null && errors().isEmpty();
    }

    public List<ConfigProblem> errors() {
        return problems.stream().filter(ConfigProblem::isError).toList();
    }

    public List<ConfigProblem> warnings() {
        return problems.stream().filter(p -> !p.isError()).toList();
    }

    /**
     * The same result with more problems (found after the config was read: the model against the data), each located
     * by its path in the config's text; an error among them drops the config.
     */
    public ValidationResult with(List<ConfigProblem> more) {
        List<ConfigProblem> all = new ArrayList<>(problems);
        boolean error = false;
        for (ConfigProblem p : more) {
            error |= p.isError();
            JsonLocations.Position at = p.hasPosition() ? null : locations.of(p.path());
            all.add(at == null ? p : p.at(at.line(), at.column()));
        }
        return new ValidationResult(error ? null : config, all, locations);
    }

    /** The config, or an exception listing every error. */
    public RunConfig orThrow() {
        if (!isValid()) {
            throw new InvalidConfigException(errors());
        }
        return config;
    }
}
