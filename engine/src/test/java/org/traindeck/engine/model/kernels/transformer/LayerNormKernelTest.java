package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.LayerGradients.checkAgainstFiniteDifferences;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.gradient.Gradient;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.layers.LayerNorm;

/** The layer norm kernel against TrainDeck's SameDiff LayerNorm with the same parameters, and finite differences. */
class LayerNormKernelTest {

    private static void compare(INDArray x, int features) {
        Layer ref = instantiate(new LayerNorm(features, 1e-3));
        Layer k = instantiate(new LayerNormKernel(features, 1e-3));
        assertThat(k.paramTable().keySet())
                .containsExactlyElementsOf(ref.paramTable().keySet())
                .containsExactly("gain", "bias");
        for (String p : ref.paramTable().keySet()) {
            assertThat(k.getParam(p).shape()).isEqualTo(ref.getParam(p).shape());
        }
        assertThat(k.params().equalsWithEps(ref.params(), 0)).isTrue();
        ref.params().assign(Nd4j.randn(DataType.FLOAT, ref.params().shape()));
        k.params().assign(ref.params());
        INDArray eps = Nd4j.randn(DataType.FLOAT, x.shape());
        INDArray[] refOut = new INDArray[1];
        INDArray[] kOut = new INDArray[1];
        Pair<Gradient, INDArray> r = forwardBackward(ref, x, eps, refOut);
        Pair<Gradient, INDArray> g = forwardBackward(k, x, eps, kOut);
        assertRelativelyClose(kOut[0], refOut[0], 1e-5, "output");
        assertRelativelyClose(g.getSecond(), r.getSecond(), 1e-4, "input gradient");
        for (String p : ref.paramTable().keySet()) {
            assertRelativelyClose(
                    g.getFirst().getGradientFor(p), r.getFirst().getGradientFor(p), 1e-4, "gradient of " + p);
        }
        assertRelativelyClose(k.getGradientsViewArray(), ref.getGradientsViewArray(), 1e-4, "flat gradient view");
    }

    @Test
    void rowsMatchTheSameDiffLayer() {
        compare(Nd4j.randn(DataType.FLOAT, 7, 6).muli(3).addi(1), 6);
    }

    @Test
    void sequencesMatchTheSameDiffLayer() {
        compare(Nd4j.randn(DataType.FLOAT, 3, 8, 5), 8);
    }

    @Test
    void imagesMatchTheSameDiffLayer() {
        compare(Nd4j.randn(DataType.FLOAT, 2, 4, 3, 3), 4);
    }

    @Test
    void aViewInputIsReadCorrectly() {
        compare(Nd4j.randn(DataType.FLOAT, 3, 5, 8).permute(0, 2, 1), 8);
    }

    /** Central differences of L = Σ eps·out in float (step 1e-2), parameters and input. */
    @Test
    void gradientsMatchFiniteDifferences() {
        checkAgainstFiniteDifferences(instantiate(new LayerNormKernel(5, 1e-5)), Nd4j.randn(DataType.FLOAT, 2, 5, 3));
    }

    @Test
    void configurationSurvivesJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(1)
                .dataType(DataType.FLOAT)
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.recurrent(5))
                .addLayer("n", new LayerNormKernel(1e-3), "in")
                .setOutputs("n")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(back.getVertices().get("n").toString()).contains("LayerNormKernel");
    }
}
