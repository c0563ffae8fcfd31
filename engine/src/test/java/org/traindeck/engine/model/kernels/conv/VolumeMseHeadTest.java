package org.traindeck.engine.model.kernels.conv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.engine.model.kernels.dense.DenseKernelTest.instantiate;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.conf.layers.Cnn3DLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The volume MSE head kernel against DL4J's Cnn3DLossLayer: the input's gradient bit for bit (training must not change),
 * the loss, the inference output, on dense and view inputs and with more than one channel; DL4J's path with a label
 * mask; and the gradient as the loss's slope by central differences.
 */
class VolumeMseHeadTest {

    private static Cnn3DLossLayer reference() {
        return new Cnn3DLossLayer.Builder(Convolution3D.DataFormat.NCDHW)
                .lossFunction(LossFunction.MSE)
                .activation(Activation.IDENTITY)
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
        Layer kernel = instantiate(VolumeMseHead.where(true, reference()));
        assertThat(kernel).isInstanceOf(VolumeMseHeadLayer.class);
        Result own = run(kernel, x, y, mask);
        Result dl4j = run(instantiate(reference()), x, y, mask);
        assertThat(own.inputGradient().shape()).isEqualTo(x.shape());
        assertThat(values(own.inputGradient())).containsExactly(values(dl4j.inputGradient()));
        assertThat(own.score()).isCloseTo(dl4j.score(), within(1e-6 * dl4j.score()));
        assertThat(values(own.output())).containsExactly(values(dl4j.output()));
        assertThat(values(own.output())).containsExactly(values(x));
    }

    /** Row-major values, compared exactly (INDArray.equals allows a tolerance). */
    private static float[] values(INDArray a) {
        return a.dup('c').data().asFloat();
    }

    @Test
    void gradientLossAndOutputAreDl4jsOnOneChannel() {
        Nd4j.getRandom().setSeed(5);
        compare(Nd4j.randn(DataType.FLOAT, 3, 1, 4, 5, 6), Nd4j.rand(DataType.FLOAT, 3, 1, 4, 5, 6), null);
    }

    @Test
    void gradientLossAndOutputAreDl4jsOnSeveralChannelsAndAPermutedView() {
        Nd4j.getRandom().setSeed(6);
        INDArray ndhwc = Nd4j.randn(DataType.FLOAT, 2, 4, 3, 5, 3);
        INDArray view = ndhwc.permute(0, 4, 1, 2, 3); // [2, 3, 4, 3, 5], not row-major
        compare(view, Nd4j.randn(DataType.FLOAT, 2, 3, 4, 3, 5), null);
    }

    @Test
    void aLabelMaskGoesToDl4jsPathWithTheSameResults() {
        Nd4j.getRandom().setSeed(7);
        INDArray mask = Nd4j.rand(DataType.FLOAT, 2, 1, 3, 3, 3);
        compare(Nd4j.randn(DataType.FLOAT, 2, 1, 3, 3, 3), Nd4j.randn(DataType.FLOAT, 2, 1, 3, 3, 3), mask);
    }

    @Test
    void theLossFollowsLabelsAndInputsSetAfterTheBackwardPass() {
        Nd4j.getRandom().setSeed(9);
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 1, 3, 4, 3);
        INDArray y = Nd4j.randn(DataType.FLOAT, 2, 1, 3, 4, 3);
        INDArray otherY = Nd4j.randn(DataType.FLOAT, 2, 1, 3, 4, 3);
        INDArray otherX = Nd4j.randn(DataType.FLOAT, 2, 1, 3, 4, 3);
        LayerWorkspaceMgr ws = LayerWorkspaceMgr.noWorkspaces();
        Layer kernel = instantiate(VolumeMseHead.where(true, reference()));
        IOutputLayer head = (IOutputLayer) kernel;
        kernel.setInput(x, ws);
        head.setLabels(y);
        kernel.backpropGradient(null, ws);
        double kept = head.computeScore(0, true, ws);
        assertThat(head.computeScore(0, true, ws))
                .as("the loss again, from a pass of its own")
                .isEqualTo(kept);
        assertThat(kept).isCloseTo(run(instantiate(reference()), x, y, null).score() - 0.25, within(1e-6 * kept));
        kernel.backpropGradient(null, ws);
        head.setLabels(otherY);
        assertThat(head.computeScore(0, true, ws))
                .isCloseTo(run(instantiate(reference()), x, otherY, null).score() - 0.25, within(1e-6 * kept));
        kernel.backpropGradient(null, ws);
        kernel.setInput(otherX, ws);
        assertThat(head.computeScore(0, true, ws))
                .isCloseTo(run(instantiate(reference()), otherX, otherY, null).score() - 0.25, within(1e-6 * kept));
    }

    @Test
    void theGradientIsTheLossSlopeTimesTheMinibatch() {
        Nd4j.getRandom().setSeed(8);
        INDArray x = Nd4j.randn(DataType.DOUBLE, 2, 2, 3, 3, 3).castTo(DataType.FLOAT);
        INDArray y = Nd4j.randn(DataType.FLOAT, 2, 2, 3, 3, 3);
        Layer kernel = instantiate(VolumeMseHead.where(true, reference()));
        INDArray dx = run(kernel, x, y, null).inputGradient();
        float h = 1e-2f;
        for (long i = 0; i < x.length(); i += 7) {
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

    @Test
    void onlyAnUnweightedIdentityMseHeadRunsOnTheKernel() {
        assertThat(VolumeMseHead.where(false, reference())).isNotInstanceOf(VolumeMseHead.class);
        Cnn3DLossLayer l1 = new Cnn3DLossLayer.Builder(Convolution3D.DataFormat.NCDHW)
                .lossFunction(LossFunction.L1)
                .activation(Activation.IDENTITY)
                .build();
        assertThat(VolumeMseHead.where(true, l1)).isSameAs(l1);
        Cnn3DLossLayer sigmoid = new Cnn3DLossLayer.Builder(Convolution3D.DataFormat.NCDHW)
                .lossFunction(LossFunction.MSE)
                .activation(Activation.SIGMOID)
                .build();
        assertThat(VolumeMseHead.where(true, sigmoid)).isSameAs(sigmoid);
        VolumeMseHead own = (VolumeMseHead) VolumeMseHead.where(true, reference());
        assertThat(own.getLossFn()).isEqualTo(reference().getLossFn());
        assertThat(own.getDataFormat()).isEqualTo(Convolution3D.DataFormat.NCDHW);
    }
}
