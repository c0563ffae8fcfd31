package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockGradientTest.gradients;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockGradientTest.relativeError;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Recompute, dropout and the configuration's JSON. */
class TransformerBlockOptionsTest {

    private static INDArray[] batch(int mb, int length) {
        Nd4j.getRandom().setSeed(13);
        return new INDArray[] {
            Nd4j.randn(DataType.FLOAT, mb, BlockGraphs.WIDTH, length),
            Nd4j.randn(DataType.FLOAT, mb, BlockGraphs.OUTPUTS, length)
        };
    }

    @Test
    void recomputeGivesTheSameGradients() {
        INDArray[] b = batch(3, 6);
        ComputationGraph kept = BlockGraphs.fused(true, 6, 4, 0, false);
        ComputationGraph recomputed = BlockGraphs.fused(true, 6, 4, 0, true);
        Gradient expected = gradients(kept, b[0], b[1]);
        Gradient actual = gradients(recomputed, b[0], b[1]);
        for (String key : kept.paramTable().keySet()) {
            assertThat(relativeError(actual.getGradientFor(key), expected.getGradientFor(key)))
                    .as(key)
                    .isLessThan(1e-6);
        }
    }

    @Test
    void recomputeKeepsOneExampleOfAttentionProbabilitiesNotTheBatchs() {
        TransformerBlock kept = new TransformerBlock(64, 256, 4, true, 0, false);
        TransformerBlock recomputed = new TransformerBlock(64, 256, 4, true, 0, true);
        // the fit estimate follows the buffers: the [heads, t, t] probabilities are no longer counted per example
        assertThat(kept.bufferFloatsPerExample(256) - recomputed.bufferFloatsPerExample(256))
                .isEqualTo(4L * 256 * 256);
    }

    @Test
    void recomputeWithDropoutReusesTheForwardPassMasks() {
        INDArray[] b = batch(2, 4);
        ComputationGraph kept = BlockGraphs.fused(false, 4, 4, 0.3, false);
        ComputationGraph recomputed = BlockGraphs.fused(false, 4, 4, 0.3, true);
        Nd4j.getRandom().setSeed(21);
        Gradient expected = gradients(kept, b[0], b[1]);
        Nd4j.getRandom().setSeed(21);
        Gradient actual = gradients(recomputed, b[0], b[1]);
        for (String key : kept.paramTable().keySet()) {
            assertThat(relativeError(actual.getGradientFor(key), expected.getGradientFor(key)))
                    .as(key)
                    .isLessThan(1e-6);
        }
    }

    @Test
    void dropoutIsSeededDropsAboutItsRateAndIsOffOutsideTraining() {
        INDArray[] b = batch(4, 8);
        ComputationGraph net = BlockGraphs.fused(false, 8, 4, 0.5, false);
        Nd4j.getRandom().setSeed(1);
        INDArray first =
                net.feedForward(new INDArray[] {b[0]}, true).get("block1").dup();
        Nd4j.getRandom().setSeed(1);
        INDArray again =
                net.feedForward(new INDArray[] {b[0]}, true).get("block1").dup();
        INDArray other =
                net.feedForward(new INDArray[] {b[0]}, true).get("block1").dup();
        assertThat(again).isEqualTo(first);
        assertThat(other).isNotEqualTo(first);
        INDArray test1 =
                net.feedForward(new INDArray[] {b[0]}, false).get("block1").dup();
        INDArray test2 =
                net.feedForward(new INDArray[] {b[0]}, false).get("block1").dup();
        assertThat(test1).isEqualTo(test2);
    }

    @Test
    void configurationRoundTripsThroughJson() {
        ComputationGraph net = BlockGraphs.fused(true, 5, 4, 0.1, true);
        ComputationGraphConfiguration conf = net.getConfiguration();
        ComputationGraphConfiguration back = ComputationGraphConfiguration.fromJson(conf.toJson());
        assertThat(back).isEqualTo(conf);
        assertThat(back.hashCode()).isEqualTo(conf.hashCode());
        ComputationGraph rebuilt = new ComputationGraph(back);
        rebuilt.init(net.params().dup(), false);
        INDArray x = batch(2, 5)[0];
        assertThat(rebuilt.outputSingle(x)).isEqualTo(net.outputSingle(x));
    }
}
