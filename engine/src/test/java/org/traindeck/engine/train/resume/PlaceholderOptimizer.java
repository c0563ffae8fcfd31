package org.traindeck.engine.train.resume;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.updater.UpdaterBlock;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Adam;

/**
 * The optimizer TrainDeck left on SameDiff layers before they had the stage's (DL4J's placeholder Adam(1e-3), one
 * instance for all), to write checkpoints as TrainDeck wrote them then; and every parameter's optimizer state as
 * DL4J's own updater blocks place it.
 */
final class PlaceholderOptimizer {

    private PlaceholderOptimizer() {}

    static ComputationGraph restore(ComputationGraph net) {
        Adam placeholder = new Adam(1e-3);
        for (Layer layer : net.getLayers()) {
            if (layer.conf().getLayer() instanceof AbstractSameDiffLayer sameDiff) {
                sameDiff.setUpdater(placeholder);
            }
        }
        net.setUpdater(null);
        net.getUpdater();
        return net;
    }

    /** Per "layer_param", its state values in order (Adam: m, then v), read through DL4J's updater blocks. */
    static Map<String, String> moments(ComputationGraph net) {
        Map<String, String> out = new TreeMap<>();
        for (UpdaterBlock ub : net.getUpdater().getUpdaterBlocks()) {
            int n = ub.getParamOffsetEnd() - ub.getParamOffsetStart();
            INDArray view = ub.getUpdaterView();
            if (view == null || n == 0) {
                continue;
            }
            float[] flat = view.toFloatVector();
            for (UpdaterBlock.ParamState p : ub.getLayersAndVariablesInBlock()) {
                int at = p.getParamOffsetStart() - ub.getParamOffsetStart();
                int length = p.getParamOffsetEnd() - p.getParamOffsetStart();
                float[] m = Arrays.copyOfRange(flat, at, at + length);
                float[] v = Arrays.copyOfRange(flat, n + at, n + at + length);
                out.put(
                        p.getLayer().getConfig().getLayerName() + "_" + p.getParamName(),
                        Arrays.toString(m) + " " + Arrays.toString(v));
            }
        }
        return out;
    }
}
