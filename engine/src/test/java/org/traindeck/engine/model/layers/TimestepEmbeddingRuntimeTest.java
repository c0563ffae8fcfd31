package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.model.kernels.InputGradients;
import org.traindeck.engine.model.kernels.dense.DenseKernelTest;

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

    /** A diffusion task feeds the timestep as a network input: nobody reads its gradient, and the loops skip it. */
    @Test
    void readingTheNetworksTimestepItLeavesOutTheTimestepsGradientWithTheSameParameterGradients() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("timestep")
                .setInputTypes(InputType.feedForward(1))
                .addLayer("t", new TimestepEmbedding(16, 6), "timestep")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .nOut(2)
                                .activation(Activation.IDENTITY)
                                .build(),
                        "t")
                .setOutputs("out")
                .build();
        InputGradients.skipWhereUnused(conf);
        TimestepEmbedding marked = (TimestepEmbedding)
                ((LayerVertex) conf.getVertices().get("t")).getLayerConf().getLayer();
        assertThat(marked.inputGradient()).isFalse();
        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);

        TimestepEmbedding skipping = new TimestepEmbedding(16, 6);
        skipping.setInputGradient(false);
        Layer k = DenseKernelTest.instantiate(new TimestepEmbedding(16, 6));
        Layer s = DenseKernelTest.instantiate(skipping);
        s.params().assign(k.params());
        INDArray t = Nd4j.createFromArray(new float[] {0, 3, 250, 999}).reshape(4, 1);
        INDArray eps = Nd4j.randn(DataType.FLOAT, 4, 6);
        Pair<Gradient, INDArray> kept = pass(k, t, eps);
        Pair<Gradient, INDArray> left = pass(s, t, eps);

        assertThat(kept.getSecond().norm2Number().doubleValue()).isPositive();
        assertThat(left.getSecond().shape()).isEqualTo(t.shape());
        assertThat(left.getSecond().norm2Number().doubleValue()).isZero();
        assertThat(s.getGradientsViewArray()).isEqualTo(k.getGradientsViewArray());
    }

    private static Pair<Gradient, INDArray> pass(Layer layer, INDArray t, INDArray eps) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(t, ws);
        layer.activate(true, ws);
        Pair<Gradient, INDArray> p = layer.backpropGradient(eps, ws);
        return new Pair<>(p.getFirst(), p.getSecond().dup());
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
