package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;

/**
 * The segmentation head kernel against DL4J's CnnLossLayer (softmax over the channels, cross-entropy): the input's
 * gradient, the loss and the inference output within 1e-5, on one-hot and soft labels, dense and view inputs, scores
 * large enough to clip; DL4J's path with a label mask; the gradient as the loss's slope by central differences; and
 * the loss kept from the backward pass the same, bit for bit, as the loss computed alone.
 */
class SegmentationSoftmaxHeadTest {

    private static CnnLossLayer reference() {
        return new CnnLossLayer.Builder(LossFunction.MCXENT)
                .activation(Activation.SOFTMAX)
                .build();
    }

    private record Result(INDArray inputGradient, double score, INDArray output) {}

    private static Result run(Layer layer, INDArray x, INDArray y, INDArray mask) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        layer.setInput(x, ws);
        ((IOutputLayer) layer).setLabels(y);
        layer.setMaskArray(mask);
        INDArray dx = layer.backpropGradient(null, ws).getSecond().dup();
        double score = ((IOutputLayer) layer).computeScore(0.25, true, ws);
        INDArray out = layer.activate(false, ws).dup();
        return new Result(dx, score, out);
    }

    private static void compare(INDArray x, INDArray y, INDArray mask) {
        Layer kernel = instantiate(SegmentationSoftmaxHead.where(true, reference()));
        assertThat(kernel).isInstanceOf(SegmentationSoftmaxHeadLayer.class);
        Result own = run(kernel, x, y, mask);
        Result dl4j = run(instantiate(reference()), x, y, mask);
        assertThat(own.inputGradient().shape()).isEqualTo(x.shape());
        assertClose(own.inputGradient(), dl4j.inputGradient());
        assertThat(own.score()).isCloseTo(dl4j.score(), within(1e-5 * dl4j.score()));
        assertThat(own.output().shape()).isEqualTo(x.shape());
        assertClose(own.output(), dl4j.output());
    }

    private static void assertClose(INDArray actual, INDArray expected) {
        float[] a = actual.dup('c').data().asFloat();
        float[] e = expected.dup('c').data().asFloat();
        assertThat(a).hasSameSizeAs(e);
        for (int i = 0; i < a.length; i++) {
            assertThat(a[i]).as("value %d", i).isCloseTo(e[i], within(1e-5f));
        }
    }

    private static INDArray oneHot(int n, int classes, int h, int w, long seed) {
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, classes, h, w);
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < h * w; p++) {
                y.putScalar(new int[] {i, (int) ((i * 5 + p * 7 + seed) % classes), p / w, p % w}, 1f);
            }
        }
        return y;
    }

    @Test
    void gradientLossAndOutputAreDl4jsOnOneHotMasks() {
        Nd4j.getRandom().setSeed(5);
        compare(Nd4j.randn(DataType.FLOAT, 3, 3, 5, 6), oneHot(3, 3, 5, 6, 1), null);
    }

    @Test
    void gradientLossAndOutputAreDl4jsOnTwoClassesSoftLabelsAndAPermutedView() {
        Nd4j.getRandom().setSeed(6);
        INDArray nhwc = Nd4j.randn(DataType.FLOAT, 2, 4, 3, 2);
        INDArray view = nhwc.permute(0, 3, 1, 2); // [2, 2, 4, 3], not row-major
        INDArray soft = Nd4j.rand(DataType.FLOAT, 2, 2, 4, 3);
        soft.divi(soft.sum(true, 1));
        compare(view, soft, null);
    }

    @Test
    void scoresFarApartAreClippedAsDl4jClipsThem() {
        Nd4j.getRandom().setSeed(7);
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 4, 4).muli(40);
        compare(x, oneHot(2, 3, 4, 4, 2), null);
    }

    @Test
    void aLabelMaskGoesToDl4jsPathWithTheSameResults() {
        Nd4j.getRandom().setSeed(8);
        INDArray mask = Nd4j.rand(DataType.FLOAT, 2, 1, 3, 3).gt(0.3).castTo(DataType.FLOAT);
        compare(Nd4j.randn(DataType.FLOAT, 2, 3, 3, 3), oneHot(2, 3, 3, 3, 3), mask);
    }

    @Test
    void theGradientIsTheLossSlopeTimesTheMinibatch() {
        Nd4j.getRandom().setSeed(9);
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 3, 3);
        INDArray y = oneHot(2, 3, 3, 3, 4);
        Layer kernel = instantiate(SegmentationSoftmaxHead.where(true, reference()));
        INDArray dx = run(kernel, x, y, null).inputGradient();
        float h = 1e-2f;
        for (long i = 0; i < x.length(); i += 5) {
            double value = x.getDouble(i);
            x.putScalar(i, value + h);
            double up = run(kernel, x, y, null).score();
            x.putScalar(i, value - h);
            double down = run(kernel, x, y, null).score();
            x.putScalar(i, value);
            double slope = (up - down) / (2 * h);
            assertThat(dx.getDouble(i) / x.size(0))
                    .as("value %d", i)
                    .isCloseTo(slope, within(2e-3 + 2e-3 * Math.abs(slope)));
        }
    }

    /** A kernel layer given x and y, after a backward pass when {@code backward}. */
    private static Layer kernelOn(INDArray x, INDArray y, boolean backward) {
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        Layer kernel = instantiate(SegmentationSoftmaxHead.where(true, reference()));
        kernel.setInput(x, ws);
        ((IOutputLayer) kernel).setLabels(y);
        if (backward) {
            kernel.backpropGradient(null, ws);
        }
        return kernel;
    }

    private static double score(Layer kernel) {
        return ((IOutputLayer) kernel).computeScore(0.25, true, LayerWorkspaceMgr.noWorkspaces());
    }

    /** The kernel's loss from a layer that never ran a backward pass. */
    private static double scoreAlone(INDArray x, INDArray y) {
        return score(kernelOn(x, y, false));
    }

    @Test
    void theLossKeptFromTheBackwardPassIsTheLossComputedAloneBitForBit() {
        Nd4j.getRandom().setSeed(10);
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 4, 5).muli(8);
        INDArray soft = Nd4j.rand(DataType.FLOAT, 2, 3, 4, 5);
        soft.divi(soft.sum(true, 1));
        for (INDArray y : new INDArray[] {oneHot(2, 3, 4, 5, 5), soft}) {
            Layer kernel = kernelOn(x, y, true);
            double kept = score(kernel);
            double alone = scoreAlone(x, y);
            assertThat(kept).as("the loss after the backward pass").isEqualTo(alone);
            assertThat(score(kernel))
                    .as("the loss again, from a softmax of its own")
                    .isEqualTo(alone);
            double dl4j = run(instantiate(reference()), x, y, null).score();
            assertThat(kept).isCloseTo(dl4j, within(1e-5 * dl4j));
        }
    }

    @Test
    void theLossFollowsLabelsAndInputsSetAfterTheBackwardPass() {
        Nd4j.getRandom().setSeed(11);
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 3, 3, 4);
        INDArray y = oneHot(2, 3, 3, 4, 6);
        INDArray otherY = oneHot(2, 3, 3, 4, 7);
        INDArray otherX = Nd4j.randn(DataType.FLOAT, 2, 3, 3, 4);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        Layer kernel = kernelOn(x, y, true);
        ((IOutputLayer) kernel).setLabels(otherY);
        assertThat(score(kernel)).isEqualTo(scoreAlone(x, otherY));
        kernel.backpropGradient(null, ws);
        kernel.setInput(otherX, ws);
        assertThat(score(kernel)).isEqualTo(scoreAlone(otherX, otherY));
        kernel.backpropGradient(null, ws);
        otherX.muli(3);
        kernel.setInput(otherX, ws);
        assertThat(score(kernel))
                .as("the same array, changed in place and set again")
                .isEqualTo(scoreAlone(otherX, otherY))
                .isNotEqualTo(scoreAlone(otherX.div(3), otherY));
    }

    @Test
    void onlyAnUnweightedSoftmaxCrossEntropyHeadRunsOnTheKernel() {
        assertThat(SegmentationSoftmaxHead.where(false, reference())).isNotInstanceOf(SegmentationSoftmaxHead.class);
        CnnLossLayer mse = new CnnLossLayer.Builder(LossFunction.MSE)
                .activation(Activation.SOFTMAX)
                .build();
        assertThat(SegmentationSoftmaxHead.where(true, mse)).isSameAs(mse);
        CnnLossLayer sigmoid = new CnnLossLayer.Builder(LossFunction.MCXENT)
                .activation(Activation.SIGMOID)
                .build();
        assertThat(SegmentationSoftmaxHead.where(true, sigmoid)).isSameAs(sigmoid);
        CnnLossLayer weighted = new CnnLossLayer.Builder(new LossMCXENT(Nd4j.createFromArray(1f, 2f, 3f)))
                .activation(Activation.SOFTMAX)
                .build();
        assertThat(SegmentationSoftmaxHead.where(true, weighted)).isSameAs(weighted);
        SegmentationSoftmaxHead own = (SegmentationSoftmaxHead) SegmentationSoftmaxHead.where(true, reference());
        assertThat(own.getLossFn()).isEqualTo(reference().getLossFn());
        assertThat(own.getActivationFn()).isEqualTo(reference().getActivationFn());
    }
}
