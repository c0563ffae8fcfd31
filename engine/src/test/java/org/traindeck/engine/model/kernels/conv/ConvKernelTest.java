package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.nodes.RecomputedConvolution2D;

/**
 * The convolution kernel against DL4J's ConvolutionLayer with oneDNN's helper (as a run installs it) and without
 * (DL4J's own im2col path): output, input gradient, weight and bias gradients, on "same" and "valid" windows, relu and
 * no activation, with and without bias; and which layers it takes.
 */
class ConvKernelTest {

    private static ConvolutionLayer conv(int in, int out, int k, ConvolutionMode mode, Activation act, boolean bias) {
        return new ConvolutionLayer.Builder(k, k)
                .nIn(in)
                .nOut(out)
                .convolutionMode(mode)
                .activation(act)
                .hasBias(bias)
                .build();
    }

    private static void assertClose(INDArray actual, INDArray expected, String what) {
        double diff = actual.castTo(DataType.DOUBLE)
                .sub(expected.castTo(DataType.DOUBLE))
                .norm2Number()
                .doubleValue();
        assertThat(diff / expected.norm2Number().doubleValue())
                .as(what + ": |actual − expected| / |expected|")
                .isLessThan(1e-5);
    }

    /** Runs both layers from the same parameters on the same input and gradient and compares everything. */
    private static void compare(ConvolutionLayer conf, long[] inputShape, boolean oneDnn) throws Exception {
        compare(conf, inputShape, oneDnn, true);
    }

    /** @param inputGradient false: the kernel as on a layer that reads the network's input (its input gradient zeros) */
    private static void compare(ConvolutionLayer conf, long[] inputShape, boolean oneDnn, boolean inputGradient)
            throws Exception {
        Layer reference = ConvTiming.instantiate(conf);
        if (oneDnn) {
            ConvTiming.withHelper(reference);
        }
        ConvKernel kernelConf = ConvKernel.of(conf);
        kernelConf.setInputGradient(inputGradient);
        Layer kernel = ConvTiming.instantiate(kernelConf);
        assertThat(kernel).isInstanceOf(ConvKernelLayer.class);
        kernel.setParams(reference.params().dup());
        Nd4j.getRandom().setSeed(11);
        INDArray x = Nd4j.randn(DataType.FLOAT, inputShape);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        reference.setInput(x, ws);
        kernel.setInput(x, ws);
        INDArray expected = reference.activate(true, ws).dup();
        INDArray actual = kernel.activate(true, ws).dup();
        assertThat(actual.shape()).isEqualTo(expected.shape());
        assertClose(actual, expected, "output");
        assertThat(((ConvKernelLayer) kernel).backwardOnKernel(expected.shape()))
                .isTrue();
        INDArray eps = Nd4j.randn(DataType.FLOAT, expected.shape());
        Pair<Gradient, INDArray> ref = reference.backpropGradient(eps, ws);
        INDArray refDx = ref.getSecond().dup();
        Map<String, INDArray> refGrads = Map.copyOf(ref.getFirst().gradientForVariable());
        INDArray refView = reference.getGradientsViewArray().dup();
        Pair<Gradient, INDArray> own = kernel.backpropGradient(eps, ws);
        if (inputGradient) {
            assertClose(own.getSecond(), refDx, "input gradient");
        } else {
            assertThat(own.getSecond().shape()).isEqualTo(refDx.shape());
            assertThat(own.getSecond().amaxNumber().doubleValue())
                    .as("the skipped input gradient")
                    .isZero();
        }
        assertThat(own.getFirst().gradientForVariable().keySet()).isEqualTo(refGrads.keySet());
        for (Map.Entry<String, INDArray> e : refGrads.entrySet()) {
            assertClose(own.getFirst().getGradientFor(e.getKey()), e.getValue(), e.getKey() + " gradient");
        }
        assertClose(kernel.getGradientsViewArray(), refView, "the layer's gradient view");
    }

    @Test
    void sameThreeByThreeWithReluAndBiasMatchesDl4jWithOneDnn() throws Exception {
        compare(conv(5, 6, 3, ConvolutionMode.Same, Activation.RELU, true), new long[] {4, 5, 9, 7}, true);
    }

    @Test
    void sameThreeByThreeMatchesDl4jsOwnPath() throws Exception {
        compare(conv(3, 4, 3, ConvolutionMode.Same, Activation.RELU, true), new long[] {3, 3, 8, 8}, false);
    }

    @Test
    void validFiveByFiveWithoutActivationOrBiasMatchesDl4j() throws Exception {
        compare(conv(2, 3, 5, ConvolutionMode.Truncate, Activation.IDENTITY, false), new long[] {3, 2, 12, 10}, true);
    }

    @Test
    void oneByOneMatchesDl4j() throws Exception {
        compare(conv(8, 4, 1, ConvolutionMode.Same, Activation.RELU, true), new long[] {2, 8, 5, 5}, true);
    }

    @Test
    void withoutTheInputGradientTheWeightAndBiasGradientsStillMatchDl4j() throws Exception {
        compare(conv(1, 6, 3, ConvolutionMode.Same, Activation.RELU, true), new long[] {4, 1, 9, 7}, true, false);
        compare(conv(3, 5, 5, ConvolutionMode.Same, Activation.RELU, true), new long[] {3, 3, 6, 11}, true, false);
        compare(
                conv(2, 3, 5, ConvolutionMode.Truncate, Activation.IDENTITY, false),
                new long[] {3, 2, 12, 10},
                true,
                false);
    }

    @Test
    void aNonContiguousInputIsCopiedFirst() throws Exception {
        ConvolutionLayer conf = conv(3, 4, 3, ConvolutionMode.Same, Activation.RELU, true);
        Layer reference = ConvTiming.withHelper(ConvTiming.instantiate(conf));
        Layer kernel = ConvTiming.instantiate(ConvKernel.of(conf));
        kernel.setParams(reference.params().dup());
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 6, 6, 3).permute(0, 3, 1, 2);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        reference.setInput(x, ws);
        kernel.setInput(x, ws);
        assertClose(kernel.activate(true, ws), reference.activate(true, ws).dup(), "output of a permuted input");
    }

    @Test
    void takesOnlyStrideOneConvolutionsWithReluOrNoActivation() {
        assertThat(ConvKernel.convertible(conv(1, 2, 3, ConvolutionMode.Same, Activation.RELU, true)))
                .isTrue();
        assertThat(ConvKernel.convertible(conv(1, 2, 3, ConvolutionMode.Same, Activation.TANH, true)))
                .isFalse();
        assertThat(ConvKernel.convertible(conv(1, 2, 2, ConvolutionMode.Same, Activation.RELU, true)))
                .as("an even window under same padding pads unevenly")
                .isFalse();
        assertThat(ConvKernel.convertible(
                        new ConvolutionLayer.Builder(3, 3).nOut(2).stride(2, 2).build()))
                .isFalse();
        assertThat(ConvKernel.convertible(new ConvolutionLayer.Builder(3, 3)
                        .nOut(2)
                        .dilation(2, 2)
                        .build()))
                .isFalse();
        assertThat(ConvKernel.convertible(new RecomputedConvolution2D(
                        new ConvolutionLayer.Builder(3, 3).nOut(2).activation(Activation.RELU))))
                .isFalse();
        ConvolutionLayer plain = conv(1, 2, 3, ConvolutionMode.Same, Activation.TANH, true);
        assertThat(ConvKernel.where(true, plain)).isSameAs(plain);
        assertThat(ConvKernel.where(false, conv(1, 2, 3, ConvolutionMode.Same, Activation.RELU, true)))
                .isExactlyInstanceOf(ConvolutionLayer.class);
    }
}
