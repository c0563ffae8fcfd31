package org.traindeck.engine.config;

import java.util.List;

/** The outcome of reading a config: the config when there is no error, and every problem found, in document order. */
public record ValidationResult(RunConfig config, List<ConfigProblem> problems) {

    public ValidationResult {
        problems = List.copyOf(problems);
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

    /** The config, or an exception listing every error. */
    public RunConfig orThrow() {
        if (!isValid()) {
            throw new InvalidConfigException(errors());
        }
        return config;
    }
}
