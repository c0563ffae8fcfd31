package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;

/** adaLN-Zero's start (the identity) and what the block learns from its condition and its context. */
class ConditionedBlockTest {

    @Test
    void aConditionedBlockStartsAsTheIdentityAndItsConditionThenMatters() {
        ComputationGraph net = ConditionedBlockGraphs.build(true, false, 4, 3, 21, 0, false);
        assertThat(net.paramTable().get("block1_adaLnW").shape()).containsExactly(ConditionedBlockGraphs.CONDITION, 48);
        assertThat(net.paramTable().get("block1_adaLnW").amaxNumber().doubleValue())
                .isZero();
        INDArray[] x = ConditionedBlockGradientTest.inputs(true, false, 3, 8);
        Map<String, INDArray> acts = net.feedForward(x, false);
        // gates at zero: both branches add nothing, whatever the condition
        assertThat(acts.get("block1")).isEqualTo(acts.get("stem"));

        Nd4j.getRandom().setSeed(4);
        net.paramTable()
                .get("block1_adaLnW")
                .assign(Nd4j.randn(DataType.FLOAT, 5, 48).muli(0.5));
        INDArray before = net.feedForward(x, false).get("block1").dup();
        x[1].muli(-1);
        assertThat(net.feedForward(x, false)
                        .get("block1")
                        .sub(before)
                        .amaxNumber()
                        .doubleValue())
                .isGreaterThan(1e-3);
    }

    @Test
    void aTinyBlockLearnsATargetThatOnlyTheConditionAndTheContextGive() {
        ComputationGraph net = ConditionedBlockGraphs.build(true, true, 4, 3, 5, 0.1, true);
        Nd4j.getRandom().setSeed(9);
        int mb = 16;
        INDArray[] x = ConditionedBlockGradientTest.inputs(true, true, mb, 12);
        x[0].assign(0.5);
        // the target: the condition's first feature plus the mean of the context's first feature, at every step
        INDArray target = x[1].getColumn(0)
                .add(x[2].slice(0, 1).mean(1))
                .reshape(mb, 1, 1)
                .broadcast(mb, ConditionedBlockGraphs.OUTPUTS, 4)
                .dup();
        MultiDataSet data = new MultiDataSet(x, new INDArray[] {target});
        double first = score(net, data);
        for (int i = 0; i < 150; i++) {
            net.fit(data);
        }
        assertThat(score(net, data)).isLessThan(first * 0.2);
    }

    private static double score(ComputationGraph net, MultiDataSet data) {
        return net.score(data, false);
    }
}
