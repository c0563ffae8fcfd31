package org.traindeck.engine.model.kernels.dense;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.model.kernels.transformer.TransformerBlockGradientTest;
import org.traindeck.engine.model.layers.FirstTimeStep;

class FirstTimeStepKernelTest {

    private static ComputationGraph net(FirstTimeStep token) {
        ComputationGraph net = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(3)
                .dataType(DataType.FLOAT)
                .updater(new Adam(1e-2))
                .graphBuilder()
                .addInputs("input")
                .addLayer(
                        "stem",
                        new TimeDistributed(
                                new DenseLayer.Builder()
                                        .nOut(6)
                                        .activation(Activation.TANH)
                                        .build(),
                                RNNFormat.NCW),
                        "input")
                .addLayer("token", token, "stem")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .nOut(2)
                                .build(),
                        "token")
                .setOutputs("out")
                .setInputTypes(InputType.recurrent(4, 5, RNNFormat.NCW))
                .build());
        net.init();
        return net;
    }

    @Test
    void sameOutputAndGradientsAsTheSameDiffLayer() {
        ComputationGraph reference = net(new FirstTimeStep());
        ComputationGraph kernel = net(new FirstTimeStepKernel());
        assertThat(kernel.getLayer("token")).isInstanceOf(FirstTimeStepKernelLayer.class);
        kernel.params().assign(reference.params());
        Nd4j.getRandom().setSeed(5);
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 4, 5);
        INDArray y = Nd4j.randn(DataType.FLOAT, 3, 2);
        assertThat(kernel.outputSingle(x)).isEqualTo(reference.outputSingle(x));
        Gradient expected = TransformerBlockGradientTest.gradients(reference, x, y);
        Gradient actual = TransformerBlockGradientTest.gradients(kernel, x, y);
        assertThat(actual.gradientForVariable().keySet())
                .isEqualTo(expected.gradientForVariable().keySet());
        for (String key : expected.gradientForVariable().keySet()) {
            assertThat(TransformerBlockGradientTest.relativeError(
                            actual.getGradientFor(key), expected.getGradientFor(key)))
                    .as(key)
                    .isLessThan(1e-6);
        }
        // the step-0 gradient reaches the stem, the other steps' is zero: the stem's weights see only step 0
        assertThat(kernel.getGradientsViewArray().amaxNumber().doubleValue()).isPositive();
    }

    @Test
    void roundTripsThroughTheGraphsJson() {
        ComputationGraph kernel = net(new FirstTimeStepKernel());
        String json = kernel.getConfiguration().toJson();
        assertThat(ComputationGraphConfiguration.fromJson(json)).isEqualTo(kernel.getConfiguration());
    }
}
