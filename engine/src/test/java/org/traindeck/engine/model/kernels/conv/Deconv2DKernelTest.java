package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.dropout.Dropout;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The transposed convolution kernel against DL4J's Deconvolution2D: output, input gradient, weight and bias gradients,
 * the U-Net's 2×2 stride-2 up-sampling and other windows, strides and padding modes, relu and no activation, with and
 * without bias, a permuted input; and which layers it takes.
 */
class Deconv2DKernelTest {

    private static Deconvolution2D deconv(
            int in, int out, int k, int stride, ConvolutionMode mode, Activation act, boolean bias) {
        return new Deconvolution2D.Builder(new int[] {k, k}, new int[] {stride, stride})
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
        assertThat(expected.norm2Number().doubleValue())
                .as(what + " is not all zeros")
                .isPositive();
        assertThat(diff / expected.norm2Number().doubleValue())
                .as(what + ": |actual − expected| / |expected|")
                .isLessThan(1e-5);
    }

    private static void compare(Deconvolution2D conf, long[] inputShape) {
        compare(conf, Nd4j.randn(DataType.FLOAT, inputShape));
    }

    /** Runs both layers from the same parameters on the same input and gradient and compares everything. */
    private static void compare(Deconvolution2D conf, INDArray x) {
        Layer reference = ConvTiming.instantiate(conf);
        Layer kernel = ConvTiming.instantiate(Deconv2DKernel.of(conf));
        assertThat(kernel).isInstanceOf(Deconv2DKernelLayer.class);
        kernel.setParams(reference.params().dup());
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        reference.setInput(x, ws);
        kernel.setInput(x, ws);
        INDArray expected = reference.activate(true, ws).dup();
        INDArray actual = kernel.activate(true, ws).dup();
        assertThat(actual.shape()).isEqualTo(expected.shape());
        assertClose(actual, expected, "output");
        assertThat(((Deconv2DKernelLayer) kernel).backwardOnKernel(expected.shape()))
                .isTrue();
        Nd4j.getRandom().setSeed(12);
        INDArray eps = Nd4j.randn(DataType.FLOAT, expected.shape());
        Pair<Gradient, INDArray> ref = reference.backpropGradient(eps, ws);
        INDArray refDx = ref.getSecond().dup();
        Map<String, INDArray> refGrads = Map.copyOf(ref.getFirst().gradientForVariable());
        INDArray refView = reference.getGradientsViewArray().dup();
        Pair<Gradient, INDArray> own = kernel.backpropGradient(eps, ws);
        assertClose(own.getSecond(), refDx, "input gradient");
        assertThat(own.getFirst().gradientForVariable().keySet()).isEqualTo(refGrads.keySet());
        for (Map.Entry<String, INDArray> e : refGrads.entrySet()) {
            assertClose(own.getFirst().getGradientFor(e.getKey()), e.getValue(), e.getKey() + " gradient");
        }
        assertClose(kernel.getGradientsViewArray(), refView, "the layer's gradient view");
    }

    @Test
    void theUnetsTwoByTwoStrideTwoUpsamplingMatchesDl4j() {
        Nd4j.getRandom().setSeed(11);
        compare(deconv(8, 4, 2, 2, ConvolutionMode.Same, Activation.RELU, true), new long[] {3, 8, 5, 6});
        compare(deconv(6, 3, 2, 2, ConvolutionMode.Same, Activation.IDENTITY, true), new long[] {2, 6, 4, 4});
    }

    @Test
    void otherWindowsStridesAndPaddingModesMatchDl4j() {
        Nd4j.getRandom().setSeed(13);
        compare(deconv(3, 5, 3, 1, ConvolutionMode.Same, Activation.RELU, true), new long[] {2, 3, 7, 6});
        compare(deconv(4, 2, 3, 2, ConvolutionMode.Truncate, Activation.RELU, true), new long[] {3, 4, 5, 5});
        compare(deconv(2, 3, 4, 2, ConvolutionMode.Same, Activation.IDENTITY, true), new long[] {2, 2, 6, 4});
        // k − s odd: DL4J's same-mode arguments as they are
        compare(deconv(3, 2, 3, 2, ConvolutionMode.Same, Activation.RELU, true), new long[] {2, 3, 5, 4});
    }

    @Test
    void withoutBiasMatchesDl4j() {
        Nd4j.getRandom().setSeed(17);
        compare(deconv(5, 4, 2, 2, ConvolutionMode.Same, Activation.RELU, false), new long[] {2, 5, 4, 3});
        compare(deconv(3, 2, 3, 1, ConvolutionMode.Truncate, Activation.IDENTITY, false), new long[] {4, 3, 5, 5});
    }

    @Test
    void aPermutedInputMatchesDl4j() {
        Nd4j.getRandom().setSeed(19);
        INDArray nhwc = Nd4j.randn(DataType.FLOAT, 2, 5, 4, 6);
        compare(deconv(6, 3, 2, 2, ConvolutionMode.Same, Activation.RELU, true), nhwc.permute(0, 3, 1, 2));
    }

    @Test
    void takesOnlyNchwTransposedConvolutionsWithReluOrNoActivation() {
        assertThat(Deconv2DKernel.convertible(deconv(1, 2, 2, 2, ConvolutionMode.Same, Activation.RELU, true)))
                .isTrue();
        assertThat(Deconv2DKernel.convertible(deconv(1, 2, 2, 2, ConvolutionMode.Same, Activation.TANH, true)))
                .isFalse();
        assertThat(Deconv2DKernel.convertible(new Deconvolution2D.Builder(2, 2)
                        .nOut(2)
                        .dropOut(new Dropout(0.5))
                        .build()))
                .isFalse();
        assertThat(Deconv2DKernel.convertible(
                        new Deconvolution2D.Builder(2, 2).nOut(2).dilation(2, 2).build()))
                .isFalse();
        Deconvolution2D tanh = deconv(1, 2, 2, 2, ConvolutionMode.Same, Activation.TANH, true);
        assertThat(Deconv2DKernel.where(true, tanh)).isSameAs(tanh);
        assertThat(Deconv2DKernel.where(false, deconv(1, 2, 2, 2, ConvolutionMode.Same, Activation.RELU, true)))
                .isExactlyInstanceOf(Deconvolution2D.class);
        assertThat(Deconv2DKernel.where(true, deconv(1, 2, 2, 2, ConvolutionMode.Same, Activation.RELU, true)))
                .isExactlyInstanceOf(Deconv2DKernel.class);
    }
}
