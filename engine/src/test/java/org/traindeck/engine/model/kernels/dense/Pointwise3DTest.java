package org.traindeck.engine.model.kernels.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.traindeck.engine.model.kernels.LayerGradients.checkAgainstFiniteDifferences;
import static org.traindeck.engine.model.kernels.LayerGradients.forwardBackward;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Cnn3DLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * The 1×1×1 head kernel against DL4J's Convolution3D with the same parameters: output, input gradient and every
 * parameter gradient, finite differences, training steps in a network, and a saved network's round trip.
 */
class Pointwise3DTest {

    private static Convolution3D.Builder builder(int in, int out, Activation a) {
        return new Convolution3D.Builder(1, 1, 1)
                .nIn(in)
                .nOut(out)
                .convolutionMode(ConvolutionMode.Same)
                .dataFormat(Convolution3D.DataFormat.NCDHW)
                .activation(a)
                .weightInit(WeightInit.XAVIER);
    }

    private static void compare(int in, int out, Activation a, INDArray x) {
        Layer kernel = instantiate(new Pointwise3D(builder(in, out, a)));
        Layer reference = instantiate(builder(in, out, a).build());
        assertThat(kernel).isInstanceOf(Pointwise3DLayer.class);
        assertThat(((Pointwise3DLayer) kernel).computes(x))
                .as("the kernel (not DL4J's layer) computes it")
                .isEqualTo(a == Activation.IDENTITY);
        kernel.params().assign(Nd4j.randn(DataType.FLOAT, kernel.params().shape()));
        reference.params().assign(kernel.params());
        long[] shape = x.shape().clone();
        shape[1] = out;
        INDArray eps = Nd4j.randn(DataType.FLOAT, shape);
        INDArray[] kernelOut = new INDArray[1];
        INDArray[] referenceOut = new INDArray[1];
        Pair<Gradient, INDArray> k = forwardBackward(kernel, x, eps, kernelOut);
        Pair<Gradient, INDArray> r = forwardBackward(reference, x, eps, referenceOut);
        assertRelativelyClose(kernelOut[0], referenceOut[0], 1e-5, "output");
        assertRelativelyClose(k.getSecond(), r.getSecond(), 1e-5, "input gradient");
        for (String key : new String[] {"W", "b"}) {
            assertRelativelyClose(
                    k.getFirst().getGradientFor(key), r.getFirst().getGradientFor(key), 1e-5, key + " gradient");
        }
        assertRelativelyClose(kernel.getGradientsViewArray(), reference.getGradientsViewArray(), 1e-5, "flat gradient");
    }

    @Test
    void oneChannelHeadMatchesConvolution3DInOutputAndEveryGradient() {
        compare(1, 1, Activation.IDENTITY, Nd4j.randn(DataType.FLOAT, 3, 1, 4, 5, 6));
    }

    @Test
    void severalChannelsMatchConvolution3D() {
        compare(3, 2, Activation.IDENTITY, Nd4j.randn(DataType.FLOAT, 2, 3, 2, 3, 4));
    }

    @Test
    void aStridedInputViewIsReadCorrectly() {
        INDArray wide = Nd4j.randn(DataType.FLOAT, 2, 5, 2, 3, 4);
        compare(
                3,
                2,
                Activation.IDENTITY,
                wide.get(
                        org.nd4j.linalg.indexing.NDArrayIndex.all(),
                        org.nd4j.linalg.indexing.NDArrayIndex.interval(1, 4)));
    }

    @Test
    void anotherActivationRunsDl4jsLayerWithTheSameResults() {
        compare(2, 2, Activation.TANH, Nd4j.randn(DataType.FLOAT, 2, 2, 2, 2, 3));
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Nd4j.getRandom().setSeed(11);
        checkAgainstFiniteDifferences(
                instantiate(new Pointwise3D(builder(2, 2, Activation.IDENTITY))),
                Nd4j.randn(DataType.FLOAT, 2, 2, 2, 2, 2));
    }

    @Test
    void refusesAKernelLargerThanOneVoxel() {
        assertThatThrownBy(() -> new Pointwise3D(
                        new Convolution3D.Builder(3, 3, 3).nIn(1).nOut(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1x1x1");
    }

    private static ComputationGraph head(boolean kernel) {
        Convolution3D.Builder b = builder(2, 1, Activation.IDENTITY);
        ComputationGraph net = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(7)
                .dataType(DataType.FLOAT)
                .updater(new Adam(1e-2))
                .graphBuilder()
                .addInputs("in")
                .addLayer("stem", builder(1, 2, Activation.TANH).build(), "in")
                .addLayer("head", kernel ? new Pointwise3D(b) : b.build(), "stem")
                .addLayer(
                        "output",
                        new Cnn3DLossLayer.Builder(Convolution3D.DataFormat.NCDHW)
                                .lossFunction(LossFunctions.LossFunction.MSE)
                                .activation(Activation.IDENTITY)
                                .build(),
                        "head")
                .setOutputs("output")
                .setInputTypes(InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 4, 4, 4, 1))
                .build());
        net.init();
        return net;
    }

    @Test
    void trainsInANetworkAsConvolution3DDoesAndSurvivesASaveAndLoad(@TempDir java.nio.file.Path dir) throws Exception {
        ComputationGraph kernel = head(true);
        ComputationGraph reference = head(false);
        assertThat(kernel.params().equalsWithEps(reference.params(), 0)).isTrue();
        INDArray x = Nd4j.randn(DataType.FLOAT, 3, 1, 4, 4, 4);
        INDArray y = Nd4j.randn(DataType.FLOAT, 3, 1, 4, 4, 4);
        for (int step = 0; step < 5; step++) {
            kernel.fit(new INDArray[] {x}, new INDArray[] {y});
            reference.fit(new INDArray[] {x}, new INDArray[] {y});
        }
        assertRelativelyClose(kernel.params(), reference.params(), 1e-5, "parameters after 5 Adam steps");
        java.io.File file = dir.resolve("net.zip").toFile();
        ModelSerializer.writeModel(kernel, file, true);
        ComputationGraph loaded = ModelSerializer.restoreComputationGraph(file, true);
        assertThat(loaded.getLayer("head")).isInstanceOf(Pointwise3DLayer.class);
        assertThat(loaded.output(x)[0].equalsWithEps(kernel.output(x)[0], 0)).isTrue();
    }
}
