package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;

/**
 * {@link TimestepEmbeddingRuntime} against the SameDiff graph it replaces, in float32 at diffusion timesteps up to
 * 999: the same output, parameter gradients and input gradient (the finite differences in double:
 * {@link GradientCheckTest#timestepEmbedding}).
 */
class TimestepEmbeddingRuntimeTest {

    /** The same layer on SameDiff's graph: the reference. */
    public static class SameDiffTimestepEmbedding extends TimestepEmbedding {
        public SameDiffTimestepEmbedding() {}

        SameDiffTimestepEmbedding(int frequencies, int units) {
            super(frequencies, units);
        }

        @Override
        SameDiffLayerRuntime runtime(NeuralNetConfiguration conf, DataType networkDataType) {
            return new SameDiffLayerRuntime(conf, networkDataType);
        }
    }

    @Test
    void matchesTheSameDiffGraph() {
        InputType in = InputType.feedForward(1);
        ComputationGraph kernel =
                TinyGraphs.chain(DataType.FLOAT, new NoOp(), in, false, 3, new TimestepEmbedding(16, 6));
        ComputationGraph reference =
                TinyGraphs.chain(DataType.FLOAT, new NoOp(), in, false, 3, new SameDiffTimestepEmbedding(16, 6));
        assertThat(kernel.getLayer("l0")).isInstanceOf(TimestepEmbeddingRuntime.class);
        assertThat(reference.getLayer("l0")).isNotInstanceOf(TimestepEmbeddingRuntime.class);
        reference.setParams(kernel.params().dup());
        INDArray t = Nd4j.createFromArray(new float[] {0, 3, 250, 999}).reshape(4, 1);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, 4, 3);
        for (int i = 0; i < 4; i++) {
            labels.putScalar(i, i % 3, 1);
        }
        INDArray expected = reference.outputSingle(t);
        assertThat(relativeError(kernel.outputSingle(t), expected)).isLessThan(1e-5);

        kernel.setInputs(t);
        kernel.setLabels(labels);
        kernel.computeGradientAndScore();
        reference.setInputs(t);
        reference.setLabels(labels);
        reference.computeGradientAndScore();
        INDArray grads = kernel.gradient().gradient();
        assertThat(grads.norm2Number().doubleValue()).isGreaterThan(0);
        assertThat(relativeError(grads, reference.gradient().gradient())).isLessThan(1e-4);
        assertThat(kernel.score()).isCloseTo(reference.score(), Offset.offset(1e-5));
    }

    private static double relativeError(INDArray actual, INDArray expected) {
        double diff = actual.castTo(DataType.DOUBLE)
                .sub(expected.castTo(DataType.DOUBLE))
                .norm2Number()
                .doubleValue();
        return diff
                / Math.max(1e-12, expected.castTo(DataType.DOUBLE).norm2Number().doubleValue());
    }
}
