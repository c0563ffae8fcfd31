package org.traindeck.engine.train.callback;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.EmaConfig;

/**
 * The stage's exponential moving average of the model's parameters (BatchNorm running statistics included, as
 * timm's ModelEmaV2 averages buffers), in float32 whatever the model's precision. It starts as a copy of the weights
 * rather than zeros, so it carries no bias towards zero and needs no debiasing (timm's ModelEmaV2, not TF's
 * num_updates ramp, which would change the decay the user gave). It is updated on the training thread after each
 * applied optimizer step from the master model, whose weights are the all-reduced ones on every tier.
 */
public final class WeightEma {

    private EmaConfig config;
    private INDArray average;
    private INDArray scratch;

    /** The stage's settings (null: no average); the average itself starts with {@link #copyWeights} or {@link #restore}. */
    void beginStage(EmaConfig stageConfig) {
        config = stageConfig;
        average = null;
        scratch = null;
    }

    EmaConfig config() {
        return config;
    }

    boolean active() {
        return average != null;
    }

    void copyWeights(ComputationGraph net) {
        average = Nd4j.create(DataType.FLOAT, net.params().shape());
        average.assign(asFloat(net.params()));
    }

    void restore(ComputationGraph net, float[] values) {
        if (values.length != net.params().length()) {
            throw new IllegalArgumentException("the weight average holds " + values.length + " values, the model "
                    + net.params().length());
        }
        average = Nd4j.create(values, net.params().shape(), DataType.FLOAT);
    }

    /**
     * After the stage's {@code stageStep}-th optimizer step (from 1): a copy of the weights up to startStep, then
     * every everySteps steps decay · ema + (1 − decay) · w (with decay 0 that is exactly w).
     */
    void afterStep(ComputationGraph net, long stageStep) {
        if (average == null) {
            return;
        }
        INDArray w = asFloat(net.params());
        if (stageStep <= config.startStep()) {
            average.assign(w);
        } else if (config.updatesAt(stageStep)) {
            if (scratch == null) {
                scratch = Nd4j.create(DataType.FLOAT, average.shape());
            }
            scratch.assign(w).muli(1 - config.decay());
            average.muli(config.decay()).addi(scratch);
        }
    }

    /** The average as float32 values in the parameters' order; null when there is none. */
    float[] values() {
        return average == null ? null : average.toFloatVector();
    }

    /** Puts the average into {@code net} and returns the weights it replaced, for {@link #swapBack}. */
    INDArray swapIn(ComputationGraph net) {
        INDArray params = net.params();
        INDArray raw = params.dup();
        params.assign(average.castTo(params.dataType()));
        return raw;
    }

    void swapBack(ComputationGraph net, INDArray raw) {
        net.params().assign(raw);
    }

    private static INDArray asFloat(INDArray a) {
        return a.dataType() == DataType.FLOAT ? a : a.castTo(DataType.FLOAT);
    }
}
