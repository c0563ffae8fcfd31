package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.nodes.RecomputedConvolution3D;

/**
 * The conv3d kernel against DL4J's Convolution3D layer: output, input gradient, weight and bias gradients, on "same"
 * and "valid" windows, relu and no activation, with and without bias; the first layer's skipped input gradient (its
 * weight and bias gradients by vol2col and one product, in one block and in several); and which layers it takes.
 */
class Conv3DKernelTest {

    private static Convolution3D conv(int in, int out, int[] k, ConvolutionMode mode, Activation act, boolean bias) {
        return new Convolution3D.Builder(k[0], k[1], k[2])
                .nIn(in)
                .nOut(out)
                .convolutionMode(mode)
                .dataFormat(Convolution3D.DataFormat.NCDHW)
                .activation(act)
                .hasBias(bias)
                .build();
    }

    private static Convolution3D conv(int in, int out, int k, ConvolutionMode mode, Activation act, boolean bias) {
        return conv(in, out, new int[] {k, k, k}, mode, act, bias);
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

    private static void compare(Convolution3D conf, long[] inputShape, boolean inputGradient) {
        compare(conf, inputShape, inputGradient, Conv3DWeightGradient.BLOCK_VOXELS);
    }

    /**
     * Runs both layers from the same parameters on the same input and gradient and compares everything.
     *
     * @param inputGradient false: the kernel as on a layer that reads the network's input (its input gradient zeros)
     * @param blockVoxels   the weight gradient's block (small: several blocks per example)
     */
    private static void compare(Convolution3D conf, long[] inputShape, boolean inputGradient, int blockVoxels) {
        Layer reference = ConvTiming.instantiate(conf);
        Conv3DKernel kernelConf = Conv3DKernel.of(conf);
        kernelConf.setInputGradient(inputGradient);
        Layer kernel = ConvTiming.instantiate(kernelConf);
        assertThat(kernel).isInstanceOf(Conv3DKernelLayer.class);
        ((Conv3DKernelLayer) kernel).blockVoxels(blockVoxels);
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
        assertThat(((Conv3DKernelLayer) kernel).backwardOnKernel(expected.shape()))
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
    void sameThreeCubedWithReluAndBiasMatchesDl4j() {
        compare(conv(3, 5, 3, ConvolutionMode.Same, Activation.RELU, true), new long[] {2, 3, 6, 7, 5}, true);
    }

    @Test
    void validWindowsWithoutActivationOrBiasMatchDl4j() {
        compare(
                conv(2, 3, new int[] {3, 1, 5}, ConvolutionMode.Truncate, Activation.IDENTITY, false),
                new long[] {3, 2, 5, 6, 8},
                true);
    }

    @Test
    void oneCubedAsMatrixProductsMatchesDl4j() {
        compare(conv(6, 4, 1, ConvolutionMode.Same, Activation.RELU, true), new long[] {2, 6, 3, 4, 5}, true);
        compare(conv(16, 1, 1, ConvolutionMode.Same, Activation.IDENTITY, true), new long[] {3, 16, 4, 3, 5}, true);
        compare(conv(5, 3, 1, ConvolutionMode.Truncate, Activation.IDENTITY, false), new long[] {2, 5, 3, 4, 2}, false);
    }

    @Test
    void oneCubedWithAFewChannelsAsLoopsMatchesDl4j() {
        // o × c ≤ Conv3DFewChannels.MAX_PAIRS: the volume head from one channel to one, and its neighbours
        compare(conv(1, 1, 1, ConvolutionMode.Same, Activation.IDENTITY, true), new long[] {8, 1, 8, 8, 8}, true);
        compare(conv(2, 2, 1, ConvolutionMode.Same, Activation.RELU, true), new long[] {3, 2, 4, 5, 3}, true);
        compare(conv(1, 3, 1, ConvolutionMode.Truncate, Activation.IDENTITY, false), new long[] {2, 1, 3, 4, 5}, true);
        compare(conv(4, 1, 1, ConvolutionMode.Same, Activation.IDENTITY, true), new long[] {2, 4, 3, 3, 3}, false);
    }

    @Test
    void withoutTheInputGradientTheWeightAndBiasGradientsStillMatchDl4j() {
        compare(conv(1, 6, 3, ConvolutionMode.Same, Activation.RELU, true), new long[] {3, 1, 7, 6, 5}, false);
        compare(
                conv(2, 3, new int[] {3, 1, 5}, ConvolutionMode.Truncate, Activation.IDENTITY, false),
                new long[] {2, 2, 5, 6, 8},
                false);
    }

    @Test
    void theWeightGradientInBlocksOfSlicesMatchesOneBlock() {
        // 6×5 voxels a slice: a block of 64 holds two slices, so seven slices take four blocks, the last one short
        compare(conv(2, 4, 3, ConvolutionMode.Same, Activation.RELU, true), new long[] {2, 2, 7, 6, 5}, false, 64);
    }

    @Test
    void aNonContiguousInputIsCopiedFirst() {
        Convolution3D conf = conv(3, 4, 3, ConvolutionMode.Same, Activation.RELU, true);
        Layer reference = ConvTiming.instantiate(conf);
        Layer kernel = ConvTiming.instantiate(Conv3DKernel.of(conf));
        kernel.setParams(reference.params().dup());
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        reference.setInput(x, ws);
        kernel.setInput(x, ws);
        assertClose(kernel.activate(true, ws), reference.activate(true, ws).dup(), "output of a permuted input");
    }

    @Test
    void takesOnlyStrideOneNcdhwConvolutionsWithReluOrNoActivation() {
        assertThat(Conv3DKernel.convertible(conv(1, 2, 3, ConvolutionMode.Same, Activation.RELU, true)))
                .isTrue();
        assertThat(Conv3DKernel.convertible(conv(1, 2, 3, ConvolutionMode.Same, Activation.TANH, true)))
                .isFalse();
        assertThat(Conv3DKernel.convertible(conv(1, 2, 2, ConvolutionMode.Same, Activation.RELU, true)))
                .as("an even window under same padding pads unevenly")
                .isFalse();
        assertThat(Conv3DKernel.convertible(new Convolution3D.Builder(3, 3, 3)
                        .nOut(2)
                        .stride(2, 2, 2)
                        .build()))
                .isFalse();
        assertThat(Conv3DKernel.convertible(new Convolution3D.Builder(3, 3, 3)
                        .nOut(2)
                        .dataFormat(Convolution3D.DataFormat.NDHWC)
                        .build()))
                .isFalse();
        assertThat(Conv3DKernel.convertible(new RecomputedConvolution3D(
                        new Convolution3D.Builder(3, 3, 3).nOut(2).activation(Activation.RELU))))
                .isFalse();
        Convolution3D plain = conv(1, 2, 3, ConvolutionMode.Same, Activation.TANH, true);
        assertThat(Conv3DKernel.where(true, plain)).isSameAs(plain);
        assertThat(Conv3DKernel.where(false, conv(1, 2, 3, ConvolutionMode.Same, Activation.RELU, true)))
                .isExactlyInstanceOf(Convolution3D.class);
    }
}
