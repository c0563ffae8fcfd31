package org.traindeck.engine.model.kernels.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

/**
 * unpatch3d with a condition (DiT's final layer): it starts at zero output, its configuration survives JSON, and its
 * gradients, and those of the patches3d and dense before it (made of its gradients of its tokens and its condition),
 * match central differences of the loss (float32, step 1e-2, 2 % or 2e-3, as the conditioned block's).
 */
class ConditionedUnpatch3DTest {

    private static final double STEP = 1e-2;

    /** Volumes of 2 channels, 4 deep, 2 high, 6 wide: a grid of 2×1×3 patches. */
    private static final ModelInput INPUT = new ModelInput(
            InputType.convolutional3D(Convolution3D.DataFormat.NCDHW, 4, 2, 6, 2), Task.RECONSTRUCTION, 2);

    @TempDir
    Path dir;

    private ComputationGraph net() {
        String config = """
                {"name": "u", "model": {"type": "graph", "layers": [
                  {"name": "tokens", "type": "patches3d", "size": 2, "units": 8},
                  {"name": "pooled", "type": "globalPool", "mode": "avg"},
                  {"name": "cond", "type": "dense", "units": 5, "activation": "tanh"},
                  {"name": "volume", "type": "unpatch3d", "inputs": "tokens", "size": 2, "channels": 3,
                   "condition": "cond", "grid": [2, 1, 3]}]},
                 "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}""";
        return ModelCompiler.build(ConfigParser.parse(config, dir).orThrow().model(), INPUT, 7);
    }

    @Test
    void startsAsDiTsFinalLayerDoesWithZeroOutputs() {
        ComputationGraph net = net();
        assertThat(net.getLayer("volume").conf().getLayer()).isInstanceOf(ConditionedUnpatch3D.class);
        assertThat(net.getLayer("volume").params().amaxNumber().doubleValue()).isZero();
        INDArray out = net.feedForward(Nd4j.randn(DataType.FLOAT, 3, 2, 4, 2, 6), false)
                .get("volume");
        assertThat(out.shape()).containsExactly(3, 3, 4, 2, 6);
        assertThat(out.amaxNumber().doubleValue()).isZero();
        // a checkpoint keeps the configuration as JSON
        String json = net.getConfiguration().toJson();
        assertThat(ComputationGraphConfiguration.fromJson(json)).isEqualTo(net.getConfiguration());
    }

    @Test
    void gradientsMatchCentralDifferences() {
        ComputationGraph net = net();
        Nd4j.getRandom().setSeed(3);
        // away from the zero start, where the modulation's gradients vanish
        net.params().addi(Nd4j.randn(DataType.FLOAT, net.params().shape()).muli(0.3));
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, 2, 4, 2, 6);
        INDArray y = Nd4j.randn(DataType.FLOAT, 2, 2, 4, 2, 6);
        score(net, x, y);
        INDArray gradient = net.gradient().gradient().dup().reshape(-1);
        INDArray params = net.params().reshape(-1);
        int checked = 0;
        long at = 0;
        for (String key : net.paramTable().keySet()) {
            long n = net.paramTable().get(key).length();
            for (long i : new long[] {at, at + n / 3, at + n / 2, at + n - 1}) {
                double saved = params.getDouble(i);
                params.putScalar(i, saved + STEP);
                double plus = score(net, x, y);
                params.putScalar(i, saved - STEP);
                double minus = score(net, x, y);
                params.putScalar(i, saved);
                // DL4J's score is the minibatch's mean, its gradients the sum (the updater divides them later)
                double numeric = 2 * (plus - minus) / (2 * STEP);
                double analytic = gradient.getDouble(i);
                assertThat(Math.abs(numeric - analytic))
                        .as(key + " at " + (i - at) + ": numeric " + numeric + ", analytic " + analytic)
                        .isLessThanOrEqualTo(Math.max(2e-3, 0.02 * Math.abs(analytic)));
                checked++;
            }
            at += n;
        }
        assertThat(net.paramTable().keySet())
                .contains("volume_Wm", "volume_bm", "volume_W", "volume_b", "tokens_W", "cond_W");
        assertThat(checked).isEqualTo(4 * net.paramTable().size());
    }

    private static double score(ComputationGraph net, INDArray x, INDArray y) {
        net.setInputs(x);
        net.setLabels(y);
        net.computeGradientAndScore();
        return net.score();
    }
}
