package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The conditioned and cross-attending block's gradients against central differences of the loss (as
 * {@link TransformerBlockFiniteDifferenceTest}: float32, step 1e-2, 2 % or 2e-3), for every parameter of the block
 * and of the dense stems before it, whose gradients are made of the block's gradients of its tokens, condition and
 * context. With recompute the gradients equal those without.
 */
class ConditionedBlockGradientTest {

    private static final double STEP = 1e-2;
    private static final int LENGTH = 4;
    private static final int CONTEXT = 3;

    static INDArray[] inputs(boolean condition, boolean context, int mb, long seed) {
        Nd4j.getRandom().setSeed(seed);
        List<INDArray> in = new ArrayList<>();
        in.add(Nd4j.randn(DataType.FLOAT, mb, ConditionedBlockGraphs.WIDTH, LENGTH));
        if (condition) {
            in.add(Nd4j.randn(DataType.FLOAT, mb, ConditionedBlockGraphs.CONDITION_IN));
        }
        if (context) {
            in.add(Nd4j.randn(DataType.FLOAT, mb, ConditionedBlockGraphs.WIDTH, CONTEXT));
        }
        return in.toArray(INDArray[]::new);
    }

    @Test
    void crossAttentionGradientsMatchCentralDifferences() {
        ComputationGraph net = ConditionedBlockGraphs.crossAttention(LENGTH, CONTEXT, 23);
        assertThat(checkCentralDifferences(net, false, true)).isEqualTo(4 * (4 + 4));
    }

    @ParameterizedTest
    @CsvSource({"true,false", "false,true", "true,true"})
    void gradientsMatchCentralDifferences(boolean condition, boolean context) {
        ComputationGraph net = ConditionedBlockGraphs.build(condition, context, LENGTH, CONTEXT, 17, 0, false);
        int blockKeys = 12 + (condition ? 2 : 0) + (context ? 6 : 0);
        int stems = 2 * (1 + (condition ? 1 : 0) + (context ? 1 : 0));
        assertThat(checkCentralDifferences(net, condition, context)).isEqualTo(4 * (blockKeys + stems));

        ComputationGraph recomputing = ConditionedBlockGraphs.build(condition, context, LENGTH, CONTEXT, 17, 0, true);
        recomputing.params().assign(net.params());
        INDArray[] x = inputs(condition, context, 2, 5);
        INDArray y = Nd4j.randn(DataType.FLOAT, 2, ConditionedBlockGraphs.OUTPUTS, LENGTH);
        score(net, x, y);
        INDArray gradient = net.gradient().gradient().dup();
        score(recomputing, x, y);
        assertThat(TransformerBlockGradientTest.relativeError(
                        recomputing.gradient().gradient(), gradient))
                .isLessThan(1e-5);
    }

    /** Checks four entries of every parameter but the head's; returns how many. */
    private static int checkCentralDifferences(ComputationGraph net, boolean condition, boolean context) {
        Nd4j.getRandom().setSeed(3);
        // away from adaLN-Zero's start, where the gates are 0 and most gradients vanish
        net.params().addi(Nd4j.randn(DataType.FLOAT, net.params().shape()).muli(0.1));
        INDArray[] x = inputs(condition, context, 2, 5);
        INDArray y = Nd4j.randn(DataType.FLOAT, 2, ConditionedBlockGraphs.OUTPUTS, LENGTH);
        score(net, x, y);
        INDArray gradient = net.gradient().gradient().dup().reshape(-1);
        INDArray params = net.params().reshape(-1);
        int checked = 0;
        long at = 0;
        for (String key : net.paramTable().keySet()) {
            long n = net.paramTable().get(key).length();
            if (!key.startsWith("out")) {
                for (long i : new long[] {at, at + n / 3, at + n / 2, at + n - 1}) {
                    double saved = params.getDouble(i);
                    params.putScalar(i, saved + STEP);
                    double plus = score(net, x, y);
                    params.putScalar(i, saved - STEP);
                    double minus = score(net, x, y);
                    params.putScalar(i, saved);
                    double numeric = 2 * (plus - minus) / (2 * STEP);
                    double analytic = gradient.getDouble(i);
                    assertThat(Math.abs(numeric - analytic))
                            .as(key + " at " + (i - at) + ": numeric " + numeric + ", analytic " + analytic)
                            .isLessThanOrEqualTo(Math.max(2e-3, 0.02 * Math.abs(analytic)));
                    checked++;
                }
            }
            at += n;
        }
        return checked;
    }

    private static double score(ComputationGraph net, INDArray[] x, INDArray y) {
        net.setInputs(x);
        net.setLabels(y);
        net.computeGradientAndScore();
        return net.score();
    }
}
