package org.traindeck.engine.train.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.indexing.conditions.Conditions;

/**
 * Activation statistics of each node (mean, standard deviation, fraction exactly zero) from one inference-mode
 * forward pass of the start of the logged batch: no dropout, BatchNorm with its running statistics, no random
 * draws, so training goes on exactly as without it.
 */
public final class ActivationProbe {

    /** Examples of the batch that are passed forward: enough for stable fractions, cheap next to a step. */
    public static final int MAX_EXAMPLES = 32;

    private ActivationProbe() {}

    /** {@code figures} with the activation statistics of {@code features} (each input) filled in, node by node. */
    public static List<LayerFigures> measure(ComputationGraph net, INDArray[] features, List<LayerFigures> figures) {
        INDArray[] input = new INDArray[features.length];
        for (int k = 0; k < features.length; k++) {
            input[k] = head(features[k], MAX_EXAMPLES);
        }
        Map<String, INDArray> acts;
        try {
            acts = net.feedForward(input, false, false);
        } finally {
            net.clearLayersStates();
        }
        List<LayerFigures> out = new ArrayList<>(figures.size());
        for (LayerFigures f : figures) {
            INDArray a = acts.get(f.node());
            if (a == null || a.length() == 0) {
                out.add(f);
                continue;
            }
            double mean = a.meanNumber().doubleValue();
            double std = a.stdNumber().doubleValue();
            double zeros = a.scan(Conditions.equals(0)).doubleValue() / a.length();
            out.add(new LayerFigures(
                    f.node(), f.paramNorm(), f.gradNorm(), f.updateRatio(), mean, std, zeros, f.reluLike()));
        }
        return out;
    }

    private static INDArray head(INDArray features, int max) {
        if (features.size(0) <= max) {
            return features;
        }
        INDArrayIndex[] at = new INDArrayIndex[features.rank()];
        at[0] = NDArrayIndex.interval(0, max);
        for (int i = 1; i < at.length; i++) {
            at[i] = NDArrayIndex.all();
        }
        return features.get(at);
    }
}
