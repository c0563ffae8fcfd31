package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Central differences of the loss against the kernel's own gradients, independent of the reference layers. The kernel
 * computes in float32 only (OpenBLAS sgemm), so the loss is differenced in float: a step of 1e-2 keeps rounding
 * (~1e-7 of the loss / step) and truncation (~step²) near 1e-4, hence a tolerance of 2 % or 2e-3 absolute, far
 * below the size of a wrong term (a missing or doubled path changes a gradient by tens of percent).
 */
class TransformerBlockFiniteDifferenceTest {

    private static final double STEP = 1e-2;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void gradientsMatchCentralDifferences(boolean causal) {
        ComputationGraph net = BlockGraphs.fused(causal, 4, 17, 0, false);
        Nd4j.getRandom().setSeed(3);
        net.params().addi(Nd4j.randn(DataType.FLOAT, net.params().shape()).muli(0.1));
        INDArray x = Nd4j.randn(DataType.FLOAT, 2, BlockGraphs.WIDTH, 4);
        INDArray y = Nd4j.randn(DataType.FLOAT, 2, BlockGraphs.OUTPUTS, 4);
        score(net, x, y);
        INDArray gradient = net.gradient().gradient().dup().reshape(-1);
        INDArray params = net.params().reshape(-1);
        int checked = 0;
        long at = 0;
        // the flat vectors hold the parameters in the parameter table's order; linear indices there are unambiguous
        for (String key : net.paramTable().keySet()) {
            long n = net.paramTable().get(key).length();
            if (key.startsWith("block")) {
                for (long i : new long[] {at, at + n / 2, at + n - 1}) {
                    double saved = params.getDouble(i);
                    params.putScalar(i, saved + STEP);
                    double plus = score(net, x, y);
                    params.putScalar(i, saved - STEP);
                    double minus = score(net, x, y);
                    params.putScalar(i, saved);
                    // DL4J's score is the minibatch's mean, its gradients the sum (the updater divides them later)
                    double numeric = x.size(0) * (plus - minus) / (2 * STEP);
                    double analytic = gradient.getDouble(i);
                    assertThat(Math.abs(numeric - analytic))
                            .as(key + " at " + (i - at) + ": numeric " + numeric + ", analytic " + analytic)
                            .isLessThanOrEqualTo(Math.max(2e-3, 0.02 * Math.abs(analytic)));
                    checked++;
                }
            }
            at += n;
        }
        assertThat(checked).isEqualTo(2 * 12 * 3);
    }

    private static double score(ComputationGraph net, INDArray x, INDArray y) {
        net.setInputs(x);
        net.setLabels(y);
        net.computeGradientAndScore();
        return net.score();
    }
}
