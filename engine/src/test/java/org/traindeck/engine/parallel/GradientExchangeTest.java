package org.traindeck.engine.parallel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class GradientExchangeTest {

    @Test
    void theSumInPartsIsTheSumInOneCallValueForValue() {
        // an odd length, so that the parts differ in size; a row vector, as a network's gradient view is
        long n = 10_007;
        INDArray master = Nd4j.randn(DataType.FLOAT, 1, n);
        List<INDArray> others = List.of(
                Nd4j.randn(DataType.FLOAT, 1, n).muli(1e3),
                Nd4j.randn(DataType.FLOAT, 1, n).muli(1e-3));
        INDArray whole = master.dup();
        GradientExchange.reduceInto(whole, others);
        for (int parts : new int[] {1, 2, 3}) {
            INDArray split = master.dup();
            for (int part = parts - 1; part >= 0; part--) {
                GradientExchange.reduceInto(split, others, part, parts);
            }
            assertThat(split.toFloatVector()).as("%d parts", parts).containsExactly(whole.toFloatVector());
        }
        assertThat(whole.toFloatVector()).isNotEqualTo(master.toFloatVector());
    }
}
