package org.traindeck.engine.train.health;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Activation statistics of each node (mean, standard deviation, fraction exactly zero) from one inference-mode
 * forward pass of the start of the logged batch: no dropout, BatchNorm with its running statistics, no random
 * draws, so training goes on exactly as without it. Several workers can each pass their part of the examples forward
 * and merge their {@link Moments}: inference treats every example on its own, so the merged figures are those of one
 * pass over all the parts' examples.
 */
public final class ActivationProbe {

    /** Examples of the batch that are passed forward: enough for stable fractions, cheap next to a step. */
    public static final int MAX_EXAMPLES = 32;

    private ActivationProbe() {}

    /**
     * One node's activations over some examples: their count, mean, sum of squared deviations from the mean and
     * count of exact zeros. Two parts merge without a second look at the values (Chan, Golub and LeVeque's update).
     */
    public record Moments(long count, double mean, double squaredDeviations, long zeros) {

        /** Read from the array's own memory in two passes (the mean, then the deviations from it), as doubles. */
        static Moments of(INDArray a) {
            ArrayValues v = ArrayValues.of(a);
            int n = v.length();
            double sum = 0;
            long zeros = 0;
            for (int i = 0; i < n; i++) {
                double x = v.get(i);
                sum += x;
                if (x == 0) {
                    zeros++;
                }
            }
            double mean = sum / n;
            double squares = 0;
            for (int i = 0; i < n; i++) {
                double d = v.get(i) - mean;
                squares += d * d;
            }
            return new Moments(n, mean, squares, zeros);
        }

        public Moments plus(Moments other) {
            if (other.count == 0) {
                return this;
            }
            if (count == 0) {
                return other;
            }
            long n = count + other.count;
            double delta = other.mean - mean;
            return new Moments(
                    n,
                    mean + delta * other.count / n,
                    squaredDeviations + other.squaredDeviations + delta * delta * count / n * other.count,
                    zeros + other.zeros);
        }

        /** The standard deviation with n - 1 in the divisor, as ND4J's {@code stdNumber}. */
        double std() {
            return count > 1 ? Math.sqrt(squaredDeviations / (count - 1)) : Double.NaN;
        }
    }

    /** The nodes whose activations {@code figures} take. */
    public static List<String> nodes(List<LayerFigures> figures) {
        return figures.stream().map(LayerFigures::node).toList();
    }

    /** Each of {@code nodes}' moments over an inference pass of the first {@code max} examples of {@code features}. */
    public static Map<String, Moments> moments(
            ComputationGraph net, INDArray[] features, Collection<String> nodes, int max) {
        INDArray[] input = new INDArray[features.length];
        for (int k = 0; k < features.length; k++) {
            input[k] = head(features[k], max);
        }
        Map<String, INDArray> acts;
        try {
            acts = net.feedForward(input, false, false);
        } finally {
            net.clearLayersStates();
        }
        Map<String, Moments> out = new HashMap<>();
        for (String node : nodes) {
            INDArray a = acts.get(node);
            if (a != null && a.length() > 0) {
                out.put(node, Moments.of(a));
            }
        }
        return out;
    }

    /** Each worker's moments merged node by node. */
    public static Map<String, Moments> merged(List<Map<String, Moments>> parts) {
        Map<String, Moments> out = new HashMap<>();
        for (Map<String, Moments> part : parts) {
            part.forEach((node, m) -> out.merge(node, m, Moments::plus));
        }
        return out;
    }

    /** {@code figures} with the activation statistics of {@code moments} filled in, where a node has them. */
    public static List<LayerFigures> withMoments(List<LayerFigures> figures, Map<String, Moments> moments) {
        List<LayerFigures> out = new ArrayList<>(figures.size());
        for (LayerFigures f : figures) {
            Moments m = moments.get(f.node());
            if (m == null || m.count() == 0) {
                out.add(f);
                continue;
            }
            out.add(new LayerFigures(
                    f.node(),
                    f.paramNorm(),
                    f.gradNorm(),
                    f.updateRatio(),
                    m.mean(),
                    m.std(),
                    (double) m.zeros() / m.count(),
                    f.reluLike()));
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
