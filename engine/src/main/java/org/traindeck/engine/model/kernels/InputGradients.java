package org.traindeck.engine.model.kernels;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;

/**
 * Which kernel layers leave out their input gradient: those that read only the network's inputs, whose gradient
 * nobody uses (DL4J's layers compute it anyway, and for a first layer it can be most of the backward pass).
 */
public final class InputGradients {

    /** A kernel layer's configuration that can leave its input gradient out (its backward pass then returns zeros). */
    public interface Skippable {
        void setInputGradient(boolean inputGradient);
    }

    private InputGradients() {}

    /** Marks every {@link Skippable} layer of the graph: off where it reads only network inputs, on elsewhere. */
    public static void skipWhereUnused(ComputationGraphConfiguration conf) {
        Set<String> inputs = Set.copyOf(conf.getNetworkInputs());
        for (Map.Entry<String, GraphVertex> v : conf.getVertices().entrySet()) {
            if (v.getValue() instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof Skippable layer) {
                List<String> from = conf.getVertexInputs().get(v.getKey());
                layer.setInputGradient(from == null || !inputs.containsAll(from));
            }
        }
    }
}
