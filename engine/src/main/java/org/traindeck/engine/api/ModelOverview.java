package org.traindeck.engine.api;

import java.util.List;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.ConfigProblem;

/**
 * A model as the app shows it beside its config: each node with its type, inputs, output shape and parameters (the
 * table {@code traindeck validate --summary} prints), the total, the fit check's line per stage, and what is wrong.
 *
 * @param nodes      in the order data flows; when the model did not compile, the config's own nodes, without shapes
 * @param compiled   whether the model compiled (only then are shapes, parameters and fit lines known)
 * @param parameters the model's parameters, head included; 0 when it did not compile
 * @param fit        the fit check, a line per stage: training memory per device against each device's memory
 * @param problems   what is wrong that is not on one node (the data, a stage's batch that does not fit), located
 * @param nccl       when working this out first loaded ND4J: what became of the config's NCCL settings (native
 *                   libraries read the environment when they load, so later changes need a restart); otherwise null
 */
public record ModelOverview(
        List<Node> nodes,
        boolean compiled,
        long parameters,
        List<String> fit,
        List<ConfigProblem> problems,
        NcclReport nccl) {

    public ModelOverview {
        nodes = List.copyOf(nodes);
        fit = List.copyOf(fit);
        problems = List.copyOf(problems);
    }

    /**
     * One node: {@code outputShape} and {@code parameters} are null when the model did not compile; {@code problem}
     * is what is wrong with this node (its config line included when known), or null.
     */
    public record Node(
            String name, String type, List<String> inputs, String outputShape, Long parameters, String problem) {

        public Node {
            inputs = List.copyOf(inputs);
        }
    }

    /** Whether nothing stands in the way of a run: it compiled, and there is no error on a node or elsewhere. */
    public boolean ok() {
        return compiled
                && nodes.stream().allMatch(n -> n.problem() == null)
                && problems.stream().noneMatch(ConfigProblem::isError);
    }
}
