package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.assertRelativelyClose;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.Subsampling3DLayer;
import org.deeplearning4j.nn.conf.layers.Upsampling3D;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The 3D max pooling and upsampling kernels against DL4J's Subsampling3DLayer and Upsampling3D (their own native ops,
 * the reference and the CUDA path): the same output and input gradient.
 */
class Pooling3DKernelsTest {

    private static Subsampling3DLayer maxPool(ConvolutionMode mode) {
        return new Subsampling3DLayer.Builder(PoolingType.MAX)
                .kernelSize(2, 2, 2)
                .stride(2, 2, 2)
                .convolutionMode(mode)
                .dataFormat(Convolution3D.DataFormat.NCDHW)
                .build();
    }

    private static Upsampling3D upsample(int... size) {
        return new Upsampling3D.Builder()
                .size(size)
                .dataFormat(Convolution3D.DataFormat.NCDHW)
                .build();
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
        assertThat(expectedGradient.amaxNumber().doubleValue()).isPositive();
        if (tolerance == 0) {
            assertThat(actual).isEqualTo(expected);
            assertThat(actualGradient).isEqualTo(expectedGradient);
        } else {
            assertRelativelyClose(actual, expected, tolerance, "output");
            assertRelativelyClose(actualGradient, expectedGradient, tolerance, "input gradient");
        }
    }

    private static void comparePool(Subsampling3DLayer conf, INDArray x) {
        Layer reference = ReluKernelTest.instantiate(conf);
        Layer kernel = ReluKernelTest.instantiate(MaxPool3DKernel.of(conf));
        assertThat(reference.getClass())
                .isEqualTo(org.deeplearning4j.nn.layers.convolution.subsampling.Subsampling3DLayer.class);
        assertThat(kernel).isInstanceOf(MaxPool3DKernelLayer.class);
        compare(reference, kernel, x, 0);
    }

    @Test
    void maxPoolMatchesDl4jsLayerExactly() {
        comparePool(maxPool(ConvolutionMode.Same), Nd4j.randn(DataType.FLOAT, 3, 4, 6, 8, 10));
    }

    @Test
    void maxPoolOnOddSizesDropsTheLastSliceRowAndColumnAsDl4jsTruncateDoes() {
        comparePool(maxPool(ConvolutionMode.Truncate), Nd4j.randn(DataType.FLOAT, 2, 3, 7, 5, 9));
    }

    @Test
    void maxPoolOnAViewMatches() {
        comparePool(
                maxPool(ConvolutionMode.Same),
                Nd4j.randn(DataType.FLOAT, 2, 6, 4, 8, 3).permute(0, 4, 3, 2, 1));
    }

    @Test
    void maxPoolWithSamePaddingOnOddSizesIsLeftToDl4j() {
        comparePool(maxPool(ConvolutionMode.Same), Nd4j.randn(DataType.FLOAT, 2, 3, 5, 4, 5));
    }

    @Test
    void aPoolWithAnOddOutputUnderSamePaddingRunsBackwardOnTheKernel() {
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 6, 2, 10);
        Layer kernel = ReluKernelTest.instantiate(MaxPool3DKernel.of(maxPool(ConvolutionMode.Same)));
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        kernel.setInput(x, ws);
        kernel.activate(true, ws);
        assertThat(((MaxPool3DKernelLayer) kernel).backwardOnKernel(Nd4j.ones(DataType.FLOAT, 2, 3, 3, 1, 5)))
                .isTrue();
        comparePool(maxPool(ConvolutionMode.Same), x);
    }

    @Test
    void aTieSendsTheGradientToTheFirstMaximumOfTheWindow() {
        INDArray x = Nd4j.zeros(DataType.FLOAT, 1, 1, 2, 2, 2);
        x.putScalar(new int[] {0, 0, 0, 0, 0}, -1f);
        Layer kernel = ReluKernelTest.instantiate(MaxPool3DKernel.of(maxPool(ConvolutionMode.Same)));
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        kernel.setInput(x, ws);
        kernel.activate(true, ws);
        INDArray dx = kernel.backpropGradient(Nd4j.ones(DataType.FLOAT, 1, 1, 1, 1, 1), ws)
                .getSecond();
        assertThat(dx.reshape(8).toFloatVector()).containsExactly(0f, 1f, 0f, 0f, 0f, 0f, 0f, 0f);
    }

    @Test
    void onlyA2x2x2MaxPoolAtStride2IsTaken() {
        assertThat(MaxPool3DKernel.convertible(maxPool(ConvolutionMode.Same))).isTrue();
        assertThat(MaxPool3DKernel.convertible(new Subsampling3DLayer.Builder(PoolingType.AVG)
                        .kernelSize(2, 2, 2)
                        .stride(2, 2, 2)
                        .build()))
                .isFalse();
        assertThat(MaxPool3DKernel.convertible(new Subsampling3DLayer.Builder(PoolingType.MAX)
                        .kernelSize(3, 3, 3)
                        .stride(2, 2, 2)
                        .build()))
                .isFalse();
        assertThat(MaxPool3DKernel.convertible(new Subsampling3DLayer.Builder(PoolingType.MAX)
                        .kernelSize(2, 2, 2)
                        .stride(2, 2, 2)
                        .dataFormat(Convolution3D.DataFormat.NDHWC)
                        .build()))
                .isFalse();
    }

    @Test
    void upsamplingMatchesDl4jsLayer() {
        for (int[] size : new int[][] {{2, 2, 2}, {3, 2, 1}, {1, 1, 4}}) {
            Upsampling3D conf = upsample(size);
            Layer reference = ReluKernelTest.instantiate(conf);
            Layer kernel = ReluKernelTest.instantiate(Upsample3DKernel.of(conf));
            assertThat(kernel).isInstanceOf(Upsample3DKernelLayer.class);
            // the gradient sums each voxel's copies, in an order of its own: equal to the last bits
            compare(reference, kernel, Nd4j.randn(DataType.FLOAT, 3, 4, 5, 3, 7), 1e-6);
        }
    }

    @Test
    void upsamplingOnAViewMatches() {
        Upsampling3D conf = upsample(2, 2, 2);
        compare(
                ReluKernelTest.instantiate(conf),
                ReluKernelTest.instantiate(Upsample3DKernel.of(conf)),
                Nd4j.randn(DataType.FLOAT, 2, 5, 3, 4, 3).permute(0, 4, 3, 2, 1),
                1e-6);
    }

    @Test
    void configurationsSurviveJson() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder()
                .graphBuilder()
                .addInputs("in")
                .setInputTypes(InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 8, 8, 8, 2))
                .addLayer("pool", MaxPool3DKernel.of(maxPool(ConvolutionMode.Same)), "in")
                .addLayer("up", Upsample3DKernel.of(upsample(2, 2, 2)), "pool")
                .setOutputs("up")
                .build();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(((LayerVertex) back.getVertices().get("pool")).getLayerConf().getLayer())
                .isExactlyInstanceOf(MaxPool3DKernel.class);
        assertThat(((LayerVertex) back.getVertices().get("up")).getLayerConf().getLayer())
                .isExactlyInstanceOf(Upsample3DKernel.class);
    }
}
