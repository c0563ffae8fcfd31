package org.traindeck.engine.model.kernels;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;

/**
 * Which kernel layers leave out their input gradient: those whose inputs no parameter lies behind, the network's
 * inputs or parameter-free vertices (a concat, a reshape) of them, whose gradient nobody uses (DL4J's layers compute it
 * anyway, and for a first layer it can be most of the backward pass).
 */
public final class InputGradients {

    /** A kernel layer's configuration that can leave its input gradient out (its backward pass then returns zeros). */
    public interface Skippable {
        void setInputGradient(boolean inputGradient);
    }

    private InputGradients() {}

    /** Marks every {@link Skippable} layer of the graph: off where no parameter lies behind its inputs, on elsewhere. */
    public static void skipWhereUnused(ComputationGraphConfiguration conf) {
        Map<String, Boolean> known = new HashMap<>();
        for (String input : conf.getNetworkInputs()) {
            known.put(input, false);
        }
        for (Map.Entry<String, GraphVertex> v : conf.getVertices().entrySet()) {
            if (v.getValue() instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof Skippable layer) {
                List<String> from = conf.getVertexInputs().get(v.getKey());
                layer.setInputGradient(from == null || from.stream().anyMatch(f -> trains(conf, f, known)));
            }
        }
    }

    /** Whether a parameter lies at or behind {@code vertex}: then its output's gradient is used. */
    private static boolean trains(ComputationGraphConfiguration conf, String vertex, Map<String, Boolean> known) {
        Boolean cached = known.get(vertex);
        if (cached != null) {
            return cached;
        }
        GraphVertex v = conf.getVertices().get(vertex);
        List<String> from = conf.getVertexInputs().get(vertex);
        // unknown vertices and vertices without inputs are taken to train: their gradient is kept
        boolean trains = v == null
                || from == null
                || from.isEmpty()
                || v.numParams(true) > 0
                || from.stream().anyMatch(f -> trains(conf, f, known));
        known.put(vertex, trains);
        return trains;
    }
}
