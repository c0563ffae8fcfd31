package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling2D;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The max pooling and upsampling kernels against DL4J's SubsamplingLayer and Upsampling2D (their own native ops, the
 * reference and the CUDA path): the same output and input gradient.
 */
class PoolingKernelsTest {

    private static SubsamplingLayer maxPool(ConvolutionMode mode) {
        return new SubsamplingLayer.Builder(PoolingType.MAX)
                .kernelSize(2, 2)
                .stride(2, 2)
                .convolutionMode(mode)
                .build();
    }

    private static Upsampling2D upsample(int sy, int sx) {
        return new Upsampling2D.Builder().size(new int[] {sy, sx}).build();
    }

    /** Output and input gradient of {@code kernel} against {@code reference}; tolerance 0 asks for equality. */
    private static void compare(Layer reference, Layer kernel, INDArray x, double tolerance) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        reference.setInput(x, ws);
        kernel.setInput(x, ws);
        INDArray expected = reference.activate(true, ws).dup();
        INDArray actual = kernel.activate(true, ws).dup();
        INDArray dy = Nd4j.randn(DataType.FLOAT, expected.shape());
        INDArray expectedGradient =
                reference.backpropGradient(dy, ws).getSecond().dup();
        INDArray actualGradient = kernel.backpropGradient(dy, ws).getSecond();
        if (tolerance == 0) {
            assertThat(actual).isEqualTo(expected);
            assertThat(actualGradient).isEqualTo(expectedGradient);
        } else {
            assertRelativelyClose(actual, expected, tolerance, "output");
            assertRelativelyClose(actualGradient, expectedGradient, tolerance, "input gradient");
        }
    }

    private static void comparePool(SubsamplingLayer conf, INDArray x) {
        Layer reference = ReluKernelTest.instantiate(conf);
        Layer kernel = ReluKernelTest.instantiate(MaxPoolKernel.of(conf));
        assertThat(reference.getClass())
                .isEqualTo(org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingLayer.class);
        assertThat(kernel).isInstanceOf(MaxPoolKernelLayer.class);
        compare(reference, kernel, x, 0);
    }

    @Test
    void maxPoolMatchesDl4jsLayerExactly() {
        comparePool(maxPool(ConvolutionMode.Same), Nd4j.randn(DataType.FLOAT, 3, 5, 12, 18));
    }

    @Test
    void maxPoolOnOddSizesDropsTheLastRowAndColumnAsDl4jsTruncateDoes() {
        comparePool(maxPool(ConvolutionMode.Truncate), Nd4j.randn(DataType.FLOAT, 2, 3, 7, 9));
    }

    @Test
    void maxPoolOnAViewMatches() {
        comparePool(
                maxPool(ConvolutionMode.Same),
                Nd4j.randn(DataType.FLOAT, 2, 6, 4, 3).permute(0, 3, 2, 1));
    }

    @Test
    void maxPoolWithSamePaddingOnOddSizesIsLeftToDl4j() {
        comparePool(maxPool(ConvolutionMode.Same), Nd4j.randn(DataType.FLOAT, 2, 3, 5, 5));
    }

    @Test
    void aTieSendsTheGradientToTheFirstMaximumOfTheWindow() {
        INDArray x = Nd4j.zeros(DataType.FLOAT, 1, 1, 2, 2);
        Layer kernel = ReluKernelTest.instantiate(MaxPoolKernel.of(maxPool(ConvolutionMode.Same)));
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        kernel.setInput(x, ws);
        kernel.activate(true, ws);
        INDArray dx = kernel.backpropGradient(Nd4j.ones(DataType.FLOAT, 1, 1, 1, 1), ws)
                .getSecond();
        assertThat(dx.reshape(4).toFloatVector()).containsExactly(1f, 0f, 0f, 0f);
    }

    @Test
    void aPoolWithAnOddOutputUnderSamePaddingRunsBackwardOnTheKernel() {
        // the LeNet's second pool: 14×14 to 7×7 (its backward pass went to DL4J's layer, the gradient's size being odd)
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 14, 14);
        Layer kernel = ReluKernelTest.instantiate(MaxPoolKernel.of(maxPool(ConvolutionMode.Same)));
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        kernel.setInput(x, ws);
        kernel.activate(true, ws);
        assertThat(((MaxPoolKernelLayer) kernel).backwardOnKernel(Nd4j.ones(DataType.FLOAT, 2, 3, 7, 7)))
                .isTrue();
        assertThat(((MaxPoolKernelLayer) kernel).backwardOnKernel(Nd4j.ones(DataType.FLOAT, 2, 3, 7, 6)))
                .isFalse();
        comparePool(maxPool(ConvolutionMode.Same), x);
    }

    @Test
    void maxPoolOverMoreImagesThanOneBlockMatches() {
        // 75 images of 12×18 to a block: two blocks; 260 of 7×9: three, the last one short
        comparePool(maxPool(ConvolutionMode.Same), Nd4j.randn(DataType.FLOAT, 3, 50, 12, 18));
        comparePool(maxPool(ConvolutionMode.Truncate), Nd4j.randn(DataType.FLOAT, 2, 300, 7, 9));
    }

    @Test
    void eachPlaceOfTheMaximumAndEachTieMatchesDl4j() {
        float[][] windows = {
            {3, 1, 2, 0},
            {1, 3, 2, 0},
            {1, 2, 3, 0},
            {1, 2, 0, 3},
            {1, 3, 3, 0},
            {1, 0, 3, 3},
            {0, 3, 1, 3},
            {2, 2, 2, 2},
            {-1, -2, -3, -1},
            {-0f, 0f, -1, -1}
        };
        INDArray x = Nd4j.create(DataType.FLOAT, 1, windows.length, 2, 2);
        for (int i = 0; i < windows.length; i++) {
            x.get(NDArrayIndex.point(0), NDArrayIndex.point(i)).assign(Nd4j.create(windows[i], new long[] {2, 2}));
        }
        comparePool(maxPool(ConvolutionMode.Same), x);
    }

    @Test
    void anInfiniteMaximumGetsTheWindowsGradient() {
        INDArray x = Nd4j.create(new float[] {1, 2, Float.POSITIVE_INFINITY, 3}, new long[] {1, 1, 2, 2});
        Layer kernel = ReluKernelTest.instantiate(MaxPoolKernel.of(maxPool(ConvolutionMode.Same)));
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        kernel.setInput(x, ws);
        kernel.activate(true, ws);
        INDArray dx = kernel.backpropGradient(Nd4j.ones(DataType.FLOAT, 1, 1, 1, 1), ws)
                .getSecond();
        assertThat(dx.reshape(4).toFloatVector()).containsExactly(0f, 0f, 1f, 0f);
    }

    @Test
    void onlyA2x2MaxPoolAtStride2IsTaken() {
        assertThat(MaxPoolKernel.convertible(maxPool(ConvolutionMode.Same))).isTrue();
        assertThat(MaxPoolKernel.convertible(new SubsamplingLayer.Builder(PoolingType.AVG)
                        .kernelSize(2, 2)
                        .stride(2, 2)
                        .build()))
                .isFalse();
        assertThat(MaxPoolKernel.convertible(new SubsamplingLayer.Builder(PoolingType.MAX)
                        .kernelSize(3, 3)
                        .stride(2, 2)
                        .build()))
                .isFalse();
        assertThat(MaxPoolKernel.convertible(new SubsamplingLayer.Builder(PoolingType.MAX)
                        .kernelSize(2, 2)
                        .stride(2, 2)
                        .dataFormat(CNN2DFormat.NHWC)
                        .build()))
                .isFalse();
    }

    @Test
    void upsamplingMatchesDl4jsLayer() {
        for (int[] size : new int[][] {{2, 2}, {3, 2}, {1, 4}}) {
            Upsampling2D conf = upsample(size[0], size[1]);
            Layer reference = ReluKernelTest.instantiate(conf);
            Layer kernel = ReluKernelTest.instantiate(UpsampleKernel.of(conf));
            assertThat(kernel).isInstanceOf(UpsampleKernelLayer.class);
            // the gradient sums each pixel's copies, in an order of its own: equal to the last bits
            compare(reference, kernel, Nd4j.randn(DataType.FLOAT, 3, 4, 5, 7), 1e-6);
        }
    }

    @Test
    void upsamplingOnAViewMatches() {
        Upsampling2D conf = upsample(2, 2);
        compare(
                ReluKernelTest.instantiate(conf),
                ReluKernelTest.instantiate(UpsampleKernel.of(conf)),
                Nd4j.randn(DataType.FLOAT, 2, 5, 3, 4).permute(0, 3, 2, 1),
                1e-6);
    }

    @Test
    void configurationsSurviveJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.convolutional(8, 8, 2))
                .addLayer("pool", MaxPoolKernel.of(maxPool(ConvolutionMode.Same)), "in")
                .addLayer("up", UpsampleKernel.of(upsample(2, 2)), "pool")
                .setOutputs("up")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(((LayerVertex) back.getVertices().get("pool")).getLayerConf().getLayer())
                .isExactlyInstanceOf(MaxPoolKernel.class);
        assertThat(((LayerVertex) back.getVertices().get("up")).getLayerConf().getLayer())
                .isExactlyInstanceOf(UpsampleKernel.class);
    }
}
