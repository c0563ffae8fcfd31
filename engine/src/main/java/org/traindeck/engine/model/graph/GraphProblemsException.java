package org.traindeck.engine.model.graph;

import java.util.List;
import java.util.stream.Collectors;

/** A layer graph that cannot be built for the data, with each problem at its node. */
public final class GraphProblemsException extends RuntimeException {

    private final List<NodeProblem> problems;

    public GraphProblemsException(List<NodeProblem> problems) {
        super(problems.stream().map(p -> p.path() + ": " + p.message()).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<NodeProblem> problems() {
        return problems;
    }
}
