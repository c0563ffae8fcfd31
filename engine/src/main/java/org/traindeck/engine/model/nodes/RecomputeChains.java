package org.traindeck.engine.model.nodes;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;

/**
 * Chains of recomputing convolutions, as PyTorch's {@code checkpoint_sequential}: where a recomputing convolution's
 * only input is another's output that nothing else reads, the graph keeps neither that output nor a copy of it: the
 * consumer computes it again from the producer's input, a few examples at a time, in its forward pass and again in
 * its backward pass. A chain keeps only its first layer's input (and its last layer's output, for what follows).
 * Parameters, names and gradients are those of the separate layers.
 */
public final class RecomputeChains {

    private RecomputeChains() {}

    /** Consumer node to producer node, for every recomputing convolution that computes its input again. */
    public static Map<String, String> links(ComputationGraphConfiguration conf) {
        Map<String, List<String>> inputs = conf.getVertexInputs();
        Map<String, Integer> readers = new HashMap<>();
        inputs.values().forEach(in -> in.forEach(name -> readers.merge(name, 1, Integer::sum)));
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : inputs.entrySet()) {
            String name = e.getKey();
            List<String> in = e.getValue();
            if (in == null || in.size() != 1 || !chainable(conf.getVertices().get(name))) {
                continue;
            }
            String producer = in.get(0);
            if (chainable(conf.getVertices().get(producer))
                    && readers.get(producer) == 1
                    && !conf.getNetworkOutputs().contains(producer)) {
                out.put(name, producer);
            }
        }
        return out;
    }

    /** Links the chains of {@code graph}'s layers (after {@code init()}); returns how many layers read from another. */
    public static int link(ComputationGraph graph) {
        int linked = 0;
        for (Map.Entry<String, String> e : links(graph.getConfiguration()).entrySet()) {
            if (graph.getLayer(e.getKey()) instanceof ExampleSlices.Sliceable consumer
                    && graph.getLayer(e.getValue()) instanceof ExampleSlices.Sliceable producer) {
                consumer.link().readFrom(producer);
                linked++;
            }
        }
        return linked;
    }

    /**
     * A recomputing convolution's node with its input as it comes (no preprocessor), and no dropout or weight noise
     * (whose draws a recompute would not repeat).
     */
    private static boolean chainable(GraphVertex v) {
        return v instanceof LayerVertex l
                && l.getPreProcessor() == null
                && l.getLayerConf().getLayer() instanceof BaseLayer layer
                && layer instanceof RecomputingLayer
                && layer.getIDropout() == null
                && layer.getWeightNoise() == null;
    }
}
